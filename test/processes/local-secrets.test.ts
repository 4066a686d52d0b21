import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliEnv, payctl, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

const KEY = 'test_my-secret-key-value'
const API_SECRET = 'sk_test_my_api-secret-value'

/** An HTTP server on loopback that counts what reaches it and answers `status`. */
async function countingServer(answer: (url: string) => {status: number; body: string}) {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    req.resume()
    const {status, body} = answer(req.url ?? '')
    res.writeHead(status, {'content-type': 'application/json'}).end(body)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe('credentials stay out of the audit log and --debug', () => {
  let sandbox: SandboxProcess
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--secret-key', KEY])
  })
  afterAll(() => sandbox.stop())

  it('redacts -H credential headers and keys with - or _ in audit.log and --debug output', async () => {
    const r = await payctl(
      [
        'api',
        'POST',
        '/users',
        '-d',
        JSON.stringify({email: 'h@example.test', first_name: 'H', last_name: 'Eaders'}),
        '-H',
        `Authorization: Bearer ${KEY}`,
        '-H',
        'X-Api-Key: opaque-credential-123',
        '--header=Cookie: sid=cookie-value-456',
        '--debug',
      ],
      {configDir: sandbox.configDir},
    )
    expect(r.exitCode, r.stderr).toBe(0)
    const audit = readFileSync(join(sandbox.configDir, 'audit.log'), 'utf8')
    expect(audit).toContain('payctl api POST /users')
    for (const secret of ['my-secret-key-value', 'opaque-credential-123', 'cookie-value-456']) {
      expect(audit).not.toContain(secret)
      expect(r.stdout + r.stderr).not.toContain(secret)
    }
  })
})

describe('sandbox start keeps its secrets out of the process list', () => {
  it('passes --secret-key and --api-secret to the --detach child by environment, not argv', async () => {
    const temp = tempConfigDir()
    try {
      const r = await runCli(
        [
          'sandbox',
          'start',
          '--detach',
          '--port',
          '0',
          '--data',
          ':memory:',
          '--secret-key',
          KEY,
          '--api-secret',
          API_SECRET,
          '--json',
          '--show-secrets',
        ],
        {configDir: temp.dir, timeoutMs: 30_000},
      )
      expect(r.exitCode, r.stderr).toBe(0)
      const started = r.json<{pid: number; credentials: {secretKey: string; apiSecret: string}}>()
      expect(started.credentials).toMatchObject({secretKey: KEY, apiSecret: API_SECRET})
      const cmdline = readFileSync(`/proc/${started.pid}/cmdline`, 'utf8')
      expect(cmdline).toContain('sandbox')
      expect(cmdline).not.toContain('my-secret-key-value')
      expect(cmdline).not.toContain('my_api-secret-value')
    } finally {
      await payctl(['sandbox', 'stop'], {configDir: temp.dir})
      temp.cleanup()
    }
  }, 60_000)

  it('reads them from the environment and from stdin with -', async () => {
    const temp = tempConfigDir()
    try {
      const r = await runCli(
        [
          'sandbox',
          'start',
          '--detach',
          '--port',
          '0',
          '--data',
          ':memory:',
          '--api-secret',
          '-',
          '--json',
          '--show-secrets',
        ],
        {
          configDir: temp.dir,
          timeoutMs: 30_000,
          input: `${API_SECRET}\n`,
          env: {PAYCTL_SANDBOX_SECRET_KEY: KEY},
        },
      )
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.json<{credentials: unknown}>().credentials).toMatchObject({
        secretKey: KEY,
        apiSecret: API_SECRET,
      })
    } finally {
      await payctl(['sandbox', 'stop'], {configDir: temp.dir})
      temp.cleanup()
    }
  }, 60_000)
})

describe('local files', () => {
  it('replaces a symlink planted at sandbox.json instead of writing through it, at 0600', async () => {
    const temp = tempConfigDir()
    const outside = join(mkdtempSync(join(tmpdir(), 'payctl-outside-')), 'victim.txt')
    writeFileSync(outside, 'keep me\n', {mode: 0o644})
    symlinkSync(outside, join(temp.dir, 'sandbox.json'))
    const sandbox = await startSandboxProcess([], {configDir: temp.dir})
    try {
      expect(readFileSync(outside, 'utf8')).toBe('keep me\n')
      const state = join(temp.dir, 'sandbox.json')
      expect(lstatSync(state).isSymbolicLink()).toBe(false)
      expect(modeOf(state)).toBe('600')
      expect(JSON.parse(readFileSync(state, 'utf8')).pid).toBe(sandbox.pid)
    } finally {
      await sandbox.stop()
      temp.cleanup()
      rmSync(join(outside, '..'), {recursive: true, force: true})
    }
  })

  it('makes the data file and its -wal and -shm 0600, wherever --data puts them', async () => {
    const temp = tempConfigDir()
    const dataDir = mkdtempSync(join(tmpdir(), 'payctl-data-'))
    chmodSync(dataDir, 0o755)
    const data = join(dataDir, 'shared.db')
    const sandbox = await startSandboxProcess([], {configDir: temp.dir, data})
    try {
      const r = await payctl(
        ['users', 'create', '--email', 'f@example.test', '--first-name', 'F', '--last-name', 'Iles'],
        {configDir: temp.dir},
      )
      expect(r.exitCode, r.stderr).toBe(0)
      for (const file of [data, `${data}-wal`, `${data}-shm`]) {
        expect(existsSync(file), file).toBe(true)
        expect(modeOf(file), file).toBe('600')
      }
    } finally {
      await sandbox.stop()
      temp.cleanup()
      rmSync(dataDir, {recursive: true, force: true})
    }
  })

  it('refuses a config dir others can write, and doctor says so with the fix', async () => {
    const temp = tempConfigDir()
    try {
      const ok = await payctl(['profiles', 'list', '--json'], {configDir: temp.dir})
      expect(ok.exitCode, ok.stderr).toBe(0)
      chmodSync(temp.dir, 0o777)
      const refused = await payctl(['profiles', 'list', '--json'], {configDir: temp.dir})
      expect(refused.exitCode).not.toBe(0)
      expect(refused.json<{error: {code: string}}>().error.code).toBe('CONFIG_DIR_PERMISSIONS')
      const doctor = await payctl(['doctor', '--json'], {configDir: temp.dir})
      expect(doctor.exitCode).toBe(1)
      expect(doctor.json<{checks: {name: string; status: string; fix?: string}[]}>().checks[0]).toMatchObject(
        {
          name: 'config dir',
          status: 'fail',
          fix: `Try: chmod 700 ${temp.dir}`,
        },
      )
    } finally {
      chmodSync(temp.dir, 0o700)
      temp.cleanup()
    }
  })

  it('creates the config dir 0700 whatever the umask, so a first run never locks out the next', async () => {
    const temp = tempConfigDir()
    const dir = join(temp.dir, 'fresh')
    try {
      const env = cliEnv(dir)
      const command = `umask 002; exec '${process.execPath}' '${join(ROOT, 'bin', 'run.js')}' profiles list --json`
      for (let i = 0; i < 2; i++) {
        const child = spawn('sh', ['-c', command], {env, stdio: 'ignore'})
        const [code] = await once(child, 'close')
        expect(code).toBe(0)
      }
      expect(modeOf(dir)).toBe('700')
    } finally {
      temp.cleanup()
    }
  })

  it('sandbox stop still stops a sandbox listening on every address', async () => {
    const temp = tempConfigDir()
    try {
      const r = await runCli(
        ['sandbox', 'start', '--detach', '--host', '0.0.0.0', '--port', '0', '--data', ':memory:', '--json'],
        {configDir: temp.dir, timeoutMs: 30_000},
      )
      expect(r.exitCode, r.stderr).toBe(0)
      const stop = await payctl(['sandbox', 'stop', '--json'], {configDir: temp.dir})
      expect(stop.json<{stopped: boolean; pid: number}>()).toEqual({
        stopped: true,
        pid: r.json<{pid: number}>().pid,
      })
    } finally {
      temp.cleanup()
    }
  }, 60_000)

  it('sandbox stop does not signal a process named by a tampered state file', async () => {
    const temp = tempConfigDir()
    const victim = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {stdio: 'ignore'})
    // Whatever answers at the state file's URL claims the victim's pid.
    const liar = await countingServer(() => ({
      status: 200,
      body: JSON.stringify({
        status: 'ok',
        version: '0.1.0',
        pid: victim.pid,
        responseShape: 'direct',
        rateLimit: 'off',
        tokenTtl: 60,
        startedAt: new Date().toISOString(),
      }),
    }))
    try {
      const state = {
        pid: victim.pid,
        url: liar.url,
        host: '127.0.0.1',
        port: 1,
        data: ':memory:',
        startedAt: new Date().toISOString(),
      }
      writeFileSync(join(temp.dir, 'sandbox.json'), JSON.stringify(state), {mode: 0o600})
      const r = await payctl(['sandbox', 'stop', '--json'], {configDir: temp.dir})
      expect(r.json<{stopped: boolean}>().stopped).toBe(false)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(victim.exitCode).toBeNull()
      expect(victim.signalCode).toBeNull()
    } finally {
      victim.kill('SIGKILL')
      await liar.close()
      temp.cleanup()
    }
  })
})

describe('nothing in the config dir is written through a symlink planted there', () => {
  let sandbox: SandboxProcess
  const outsides: string[] = []
  beforeAll(async () => {
    sandbox = await startSandboxProcess()
  })
  afterAll(async () => {
    await sandbox.stop()
    for (const dir of outsides) rmSync(dir, {recursive: true, force: true})
  })
  /** A folder outside the config dir, for what a planted link points at. */
  const outside = () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-outside-'))
    outsides.push(dir)
    return dir
  }
  const login = (configDir: string, name = 'local') =>
    payctl(
      [
        'auth',
        'login',
        '--profile',
        name,
        '--env',
        'local',
        '--base-url',
        sandbox.url,
        '--secret-key',
        sandbox.credentials.secretKey,
      ],
      {configDir, timeoutMs: 10_000},
    )
  const isLink = (path: string) => lstatSync(path).isSymbolicLink()
  const profileNames = (configDir: string) =>
    Object.keys(JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')).profiles)

  it('profiles.json: a link to nothing is replaced by the file, never creating what it names', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'created.json')
    symlinkSync(target, join(temp.dir, 'profiles.json'))
    try {
      expect((await payctl(['profiles', 'list', '--json'], {configDir: temp.dir})).json()).toEqual([])
      const r = await login(temp.dir)
      expect(r.exitCode, r.stderr).toBe(0)
      expect(existsSync(target)).toBe(false)
      expect(isLink(join(temp.dir, 'profiles.json'))).toBe(false)
      expect(modeOf(join(temp.dir, 'profiles.json'))).toBe('600')
      expect(profileNames(temp.dir)).toEqual(['local'])
    } finally {
      temp.cleanup()
    }
  })

  it('profiles.json: a link to a profile file of yours keeps its profiles, and is replaced, its target unchanged', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'profiles.json')
    const kept = `${JSON.stringify({currentProfile: 'old', profiles: {old: {environment: 'local', baseUrl: sandbox.url}}})}\n`
    writeFileSync(target, kept, {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'profiles.json'))
    try {
      const list = await payctl(['profiles', 'list', '--json'], {configDir: temp.dir})
      expect(list.json<{name: string}[]>().map((p) => p.name)).toEqual(['old'])
      const r = await login(temp.dir, 'new')
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readFileSync(target, 'utf8')).toBe(kept)
      expect(isLink(join(temp.dir, 'profiles.json'))).toBe(false)
      expect(modeOf(join(temp.dir, 'profiles.json'))).toBe('600')
      expect(profileNames(temp.dir)).toEqual(['old', 'new'])
    } finally {
      temp.cleanup()
    }
  })

  it('profiles.json: a link to a file others can read is refused, naming the link, and the file is left alone', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'notes.txt')
    writeFileSync(target, 'keep me\n', {mode: 0o644})
    chmodSync(target, 0o644)
    symlinkSync(target, join(temp.dir, 'profiles.json'))
    try {
      for (const r of [await payctl(['profiles', 'list'], {configDir: temp.dir}), await login(temp.dir)]) {
        expect(r.exitCode).toBe(1)
        expect(r.stderr).toContain(`the profile file ${join(temp.dir, 'profiles.json')} is a symbolic link`)
        expect(r.stderr).toContain(`rm ${join(temp.dir, 'profiles.json')}`)
        expect(r.stdout).not.toContain('✓')
      }
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      expect(modeOf(target)).toBe('644')
    } finally {
      temp.cleanup()
    }
  })

  it('profiles.json.lock: a planted link is taken for no lock, not for one held by another process', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'lock')
    mkdirSync(target)
    symlinkSync(target, join(temp.dir, 'profiles.json.lock'))
    try {
      const r = await login(temp.dir)
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readdirSync(target)).toEqual([])
      expect(profileNames(temp.dir)).toEqual(['local'])
    } finally {
      temp.cleanup()
    }
  })

  it('audit.log: a planted link is replaced by the log, with a warning; its target and the command’s answer are unchanged', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'victim.txt')
    writeFileSync(target, 'keep me\n', {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'audit.log'))
    const create = (email: string) =>
      payctl(['users', 'create', '--email', email, '--first-name', 'A', '--last-name', 'Udit'], {
        configDir: temp.dir,
      })
    try {
      expect((await login(temp.dir)).exitCode).toBe(0)
      const r = await create('a1@example.test')
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^usr_\w+\n$/)
      expect(r.stderr).toContain('audit.log was a symbolic link')
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      const log = join(temp.dir, 'audit.log')
      expect(isLink(log)).toBe(false)
      expect(modeOf(log)).toBe('600')
      const again = await create('a2@example.test')
      expect(again.exitCode, again.stderr).toBe(0)
      expect(again.stderr).toBe('')
      const lines = readFileSync(log, 'utf8').trim().split('\n')
      expect(lines.map((l) => JSON.parse(l).command)).toEqual([
        expect.stringContaining('payctl users create --email a1@example.test'),
        expect.stringContaining('payctl users create --email a2@example.test'),
      ])
    } finally {
      temp.cleanup()
    }
  })

  it('seed: a link planted at the journal folder or a --journal file is replaced, its target unchanged', async () => {
    const temp = tempConfigDir()
    const folder = outside()
    symlinkSync(folder, join(temp.dir, 'seed'))
    const fixture = join(temp.dir, 'one.yaml')
    writeFileSync(
      fixture,
      'users:\n  ada:\n    email: ada@example.test\n    first_name: Ada\n    last_name: L\n',
    )
    const victim = join(outside(), 'victim.txt')
    writeFileSync(victim, 'keep me\n', {mode: 0o600})
    const journal = join(temp.dir, 'journal.ndjson')
    symlinkSync(victim, journal)
    try {
      expect((await login(temp.dir)).exitCode).toBe(0)
      const r = await payctl(['seed', fixture, '--json'], {configDir: temp.dir, timeoutMs: 30_000})
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readdirSync(folder)).toEqual([])
      expect(isLink(join(temp.dir, 'seed'))).toBe(false)
      expect(readdirSync(join(temp.dir, 'seed'))).toHaveLength(1)
      const ids = r.json()
      const viaJournal = await payctl(['seed', fixture, '--journal', journal, '--json'], {
        configDir: temp.dir,
        timeoutMs: 30_000,
      })
      expect(viaJournal.exitCode, viaJournal.stderr).toBe(0)
      // Replayed with the same idempotency keys: the same record, not a second one.
      expect(viaJournal.json()).toEqual(ids)
      expect(readFileSync(victim, 'utf8')).toBe('keep me\n')
      expect(isLink(journal)).toBe(false)
      expect(modeOf(journal)).toBe('600')
      expect(readFileSync(journal, 'utf8')).toContain('"key":"users.ada"')
    } finally {
      temp.cleanup()
    }
  })

  it('sandbox.log: a planted link is replaced by the log of a --detach sandbox, its target unchanged', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'victim.txt')
    writeFileSync(target, 'keep me\n', {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'sandbox.log'))
    try {
      const r = await runCli(
        ['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--json'],
        {
          configDir: temp.dir,
          timeoutMs: 30_000,
        },
      )
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      expect(isLink(join(temp.dir, 'sandbox.log'))).toBe(false)
      expect(modeOf(join(temp.dir, 'sandbox.log'))).toBe('600')
    } finally {
      await payctl(['sandbox', 'stop'], {configDir: temp.dir})
      temp.cleanup()
    }
  }, 60_000)

  it('sandbox.db: a link at the default data file is refused with what to do, its target unchanged', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'victim.db')
    writeFileSync(target, 'keep me\n', {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'sandbox.db'))
    try {
      const r = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--json'], {
        configDir: temp.dir,
        timeoutMs: 30_000,
      })
      expect(r.exitCode).toBe(1)
      expect(r.json<{error: {code: string; message: string}}>().error).toMatchObject({
        code: 'CONFIG_FILE_LINK',
        message: expect.stringContaining(`${join(temp.dir, 'sandbox.db')} is a symbolic link`),
      })
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      expect(existsSync(`${target}-wal`)).toBe(false)
    } finally {
      await payctl(['sandbox', 'stop'], {configDir: temp.dir})
      temp.cleanup()
    }
  }, 60_000)
})

describe('proxies', () => {
  let sandbox: SandboxProcess
  beforeAll(async () => {
    sandbox = await startSandboxProcess()
  })
  afterAll(() => sandbox.stop())

  it('sends nothing for the local sandbox through HTTP_PROXY, unless PAYCTL_PROXY_LOOPBACK=1', async () => {
    const proxy = await countingServer(() => ({status: 502, body: '{}'}))
    try {
      const env = {
        HTTP_PROXY: proxy.url,
        http_proxy: proxy.url,
        HTTPS_PROXY: proxy.url,
        https_proxy: proxy.url,
        NO_PROXY: '',
        no_proxy: '',
      }
      const args = [
        'users',
        'create',
        '--email',
        'p@example.test',
        '--first-name',
        'P',
        '--last-name',
        'Roxy',
        '--json',
      ]
      const direct = await payctl(args, {configDir: sandbox.configDir, env})
      expect(direct.exitCode, direct.stderr).toBe(0)
      expect(proxy.hits()).toBe(0)
      const through = await payctl(['users', 'get', 'usr_nobody', '--json'], {
        configDir: sandbox.configDir,
        env: {...env, PAYCTL_PROXY_LOOPBACK: '1'},
        timeoutMs: 60_000,
      })
      expect(through.exitCode).not.toBe(0)
      expect(proxy.hits()).toBeGreaterThan(0)
    } finally {
      await proxy.close()
    }
  }, 90_000)

  it('sends nothing through a proxy for any spelling of this machine, under HTTP_PROXY and http_proxy', async () => {
    const proxy = await countingServer(() => ({status: 502, body: '{}'}))
    const port = new URL(sandbox.url).port
    try {
      for (const variable of ['HTTP_PROXY', 'http_proxy']) {
        // Each spelling is a new base URL, so each run exchanges the api secret for a token anew.
        for (const host of ['0.0.0.0', '127.1', '2130706433', 'localhost.', '[::ffff:127.0.0.1]', '[::]']) {
          const run = await payctl(['users', 'get', 'usr_nobody', '--json'], {
            configDir: sandbox.configDir,
            env: {
              [variable]: proxy.url,
              NO_PROXY: '',
              no_proxy: '',
              PAYCTL_BASE_URL: `http://${host}:${port}`,
            },
            timeoutMs: 60_000,
          })
          expect(proxy.hits(), `${variable} ${host}`).toBe(0)
          // Where the spelling reaches the sandbox (IPv4), the request went through to it directly.
          if (!host.startsWith('[') && host !== 'localhost.')
            expect(run.stdout + run.stderr).toMatch(/NOT_FOUND|INVALID_USER_ID/)
        }
      }
    } finally {
      await proxy.close()
    }
  }, 120_000)

  it('doctor warns when a proxy would see a request to this machine', async () => {
    const proxy = await countingServer(() => ({status: 502, body: '{}'}))
    try {
      const env = {HTTP_PROXY: proxy.url, NO_PROXY: ''}
      const direct = await payctl(['doctor', '--json'], {configDir: sandbox.configDir, env})
      const directCheck = direct.json<{checks: {name: string; status: string; detail: string}[]}>().checks
      expect(directCheck.find((c) => c.name === 'proxy')).toMatchObject({
        status: 'pass',
        detail: expect.stringMatching(/reached directly/),
      })
      const through = await payctl(['doctor', '--json'], {
        configDir: sandbox.configDir,
        env: {
          ...env,
          PAYCTL_PROXY_LOOPBACK: '1',
          PAYCTL_BASE_URL: `http://0.0.0.0:${new URL(sandbox.url).port}`,
        },
        timeoutMs: 60_000,
      })
      const check = through
        .json<{checks: {name: string; status: string; detail: string; fix?: string}[]}>()
        .checks.find((c) => c.name === 'proxy')
      expect(check?.status).toBe('warn')
      expect(check?.detail).toMatch(/through .*credentials in clear/)
      expect(check?.fix).toMatch(/PAYCTL_PROXY_LOOPBACK/)
    } finally {
      await proxy.close()
    }
  }, 90_000)
})
