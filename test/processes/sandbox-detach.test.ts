import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {connect} from 'node:net'
import {networkInterfaces, tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Readable} from 'node:stream'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {
  type CliResult,
  cliEnv,
  cliFor,
  loginArgs,
  ROOT,
  readProfileFile,
  runCli,
  tempConfigDir,
} from '../helpers/cli.js'
import {suspend} from '../helpers/suspend.js'

/**
 * `payctl sandbox start` as a process, in the background (--detach) and in the foreground: a sandbox
 * per way of starting it, each looked at by the tests of its describe in turn, then stopped. Status,
 * stop, login and the starts refused before anything runs are commands run in this process.
 */

const BIN = join(ROOT, 'bin', 'run.js')
const KEY = 'test_my-secret-key-value'
const API_SECRET = 'sk_test_my_api-secret-value'

interface Started {
  url: string
  pid: number
  credentials: {apiKey: string; apiSecret: string; partnerId: string; secretKey: string}
}

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)
const isLink = (path: string) => lstatSync(path).isSymbolicLink()

/** The auth of the `local` profile `sandbox start` wrote into a config dir. */
const profileAuth = (configDir: string) =>
  readProfileFile(configDir).profiles.local.auth as {
    apiKey: string
    apiSecret: string
    partnerId: string
  }

/** A folder outside every config dir, for what a planted link points at; removed by `cleanup`. */
function outsideDir(): {dir: string; cleanup: () => void} {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-outside-'))
  return {dir, cleanup: () => rmSync(dir, {recursive: true, force: true})}
}

/** `promise`, or a failure naming `what` past a generous deadline. */
function within<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still not so after ${ms} ms: ${what}`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** What a stream says, whole, once it ends. */
async function text(stream: Readable): Promise<string> {
  let all = ''
  stream.setEncoding('utf8')
  for await (const chunk of stream) all += chunk
  return all
}

/**
 * `payctl ARGS` as a process handed a pipe at a high descriptor too, as bash hands one down for
 * `2> >(grep …)` (fd 63 or so): what it printed and exited with, and the end of that pipe, which comes
 * once every process holding it has closed it.
 */
function withExtraPipe(
  args: string[],
  configDir: string,
  env: Record<string, string | undefined> = {},
): {result: Promise<CliResult>; pipeEnded: Promise<void>} {
  const fd = 63
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe', ...Array(fd - 3).fill('ignore'), 'pipe']
  const child = spawn(process.execPath, [BIN, ...args], {env: cliEnv(configDir, env), stdio})
  const extra = (child.stdio as unknown as Readable[])[fd]!
  extra.resume()
  const pipeEnded = once(extra, 'end').then(() => undefined)
  // Not 'close': that waits for the extra pipe as well.
  const result = Promise.all([text(child.stdout!), text(child.stderr!), once(child, 'exit')]).then(
    ([stdout, stderr, [code]]) => ({
      stdout,
      stderr,
      exitCode: code as number,
      json: <T>() => JSON.parse(stdout) as T,
    }),
  )
  return {result, pipeEnded}
}

/** `payctl sandbox start --port 0 --data :memory: ARGS` in the foreground: its --json document once it listens. */
async function foreground(configDir: string, args: string[]) {
  const child = spawn(
    process.execPath,
    [BIN, 'sandbox', 'start', '--port', '0', '--data', ':memory:', '--json', ...args],
    {env: cliEnv(configDir), stdio: ['ignore', 'pipe', 'pipe']},
  )
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  let stderr = ''
  child.stderr.on('data', (c: string) => {
    stderr += c
  })
  const exited = once(child, 'exit')
  const started = await within(
    new Promise<Started>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (c: string) => {
        out += c
        try {
          resolve(JSON.parse(out) as Started)
        } catch {
          // Not whole yet.
        }
      })
      child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${out}\n${stderr}`)))
    }),
    'the sandbox listens',
    30_000,
  )
  return {
    started,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** An address of this machine that is not loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address

const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, host)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

const DETACH = ['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:']

describe('sandbox start --detach: two starts for one config dir at once, and the one that runs', () => {
  const first = tempConfigDir()
  const second = tempConfigDir()
  let both: CliResult[]
  let pipesEnded: Promise<void>[]
  let winner: Started

  beforeAll(async () => {
    // In CI, where the rate limit stays on all the same.
    const starts = [0, 1].map(() => withExtraPipe([...DETACH, '--json'], first.dir, {CI: 'true'}))
    both = await Promise.all(starts.map((s) => s.result))
    pipesEnded = starts.map((s) => s.pipeEnded)
    const won = both.find((r) => r.exitCode === 0)
    if (won) winner = won.json<Started>()
  })
  afterAll(async () => {
    for (const dir of [first.dir, second.dir]) await cliFor(dir)('sandbox', 'stop')
    first.cleanup()
    second.cleanup()
  })

  it('one runs, the other is refused with the fix, taking nothing over', () => {
    const won = both.filter((r) => r.exitCode === 0)
    const lost = both.filter((r) => r.exitCode !== 0)
    expect(won, both.map((r) => r.stderr).join('\n')).toHaveLength(1)
    expect(lost).toHaveLength(1)
    expect(lost[0]!.exitCode).toBe(2)
    const {error} = lost[0]!.json<{error: {code: string; suggestions: string[]}}>()
    expect(error.code).toBe('SANDBOX_RUNNING')
    expect(error.suggestions.join('\n')).toContain(
      'PAYCTL_CONFIG_DIR="$(mktemp -d)" payctl sandbox start --port 0',
    )
    const profiles = readProfileFile(first.dir)
    expect(profiles.profiles.local.baseUrl).toBe(winner.url)
  })

  it('the background sandbox does not hold the caller’s other descriptors open', async () => {
    const started = both.findIndex((r) => r.exitCode === 0)
    await within(pipesEnded[started]!, 'the pipe handed to the start that won has ended')
    const status = await cliFor(first.dir)('sandbox', 'status')
    expect(status.exitCode, status.stderr).toBe(0) // still running
  })

  it('--json writes the API secret and secret key [REDACTED] without --show-secrets', () => {
    const {apiKey, apiSecret, partnerId} = profileAuth(first.dir)
    expect(apiSecret).toMatch(/^sk_test_/)
    expect(winner.credentials).toEqual({partnerId, apiKey, apiSecret: '[REDACTED]', secretKey: '[REDACTED]'})
  })

  it('reports its status, serves the CLI with the profile it wrote, and refuses a second start', async () => {
    const cli = cliFor(first.dir)
    const {url, pid} = winner
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const status = await cli('sandbox', 'status', '--json')
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({status: 'ok', url, pid, responseShape: 'envelope'})
    expect(status.json<{inspector: string}>().inspector).toBe(`${url}/_sandbox/ui`)
    const card = await cli('sandbox', 'status')
    expect(card.stdout).toMatch(new RegExp(`inspector\\s+${url}/_sandbox/ui`))

    const user = await cli(
      'users',
      'create',
      '--email',
      'bg@example.test',
      '--first-name',
      'B',
      '--last-name',
      'G',
    )
    expect(user.exitCode, user.stderr).toBe(0)
    expect(user.stdout.trim()).toMatch(/^usr_/)

    // Refused before a background copy is started: the same run in this process.
    const again = await cli('sandbox', 'start', '--detach', '--port', '0')
    expect(again.exitCode).toBe(2)
    expect(again.stderr).toContain('SANDBOX_RUNNING')
  })

  it('emulates the 100-a-minute rate limit in CI too', async () => {
    const status = await cliFor(first.dir)('sandbox', 'status', '--json')
    expect(status.json()).toMatchObject({rateLimit: 'spec'})
  })

  it('a busy port is the same usage error, with a --port hint, with and without --detach', async () => {
    const port = new URL(winner.url).port
    const args = ['sandbox', 'start', '--port', port, '--data', ':memory:', '--json']
    // In the foreground the port is refused before anything listens: run in this process.
    const here = await cliFor(second.dir, {timeoutMs: 30_000})(...args)
    const detached = await runCli([...args, '--detach'], {configDir: second.dir, timeoutMs: 30_000})
    for (const [how, r] of [
      ['foreground', here],
      ['--detach', detached],
    ] as const) {
      const {error} = r.json<{error: {code: string; suggestions: string[]}}>()
      expect(error.code, how).toBe('PORT_IN_USE')
      expect(error.suggestions.join(' '), how).toContain('--port')
      expect(r.exitCode, how).toBe(2)
    }
  })

  it('stop in a config dir that started none says so and exits 1, naming others only when asked', async () => {
    const cli = cliFor(second.dir)
    const other = await cli('sandbox', 'stop')
    expect(other.exitCode, other.stderr).toBe(1)
    expect(other.stdout).toBe('')
    expect(other.stderr).toContain(`SANDBOX_NOT_RUNNING: no sandbox runs for this config dir (${second.dir})`)
    expect(other.stderr).toContain('Try: payctl sandbox status --all')
    // Another config dir's sandbox is neither stopped nor named.
    expect(other.stderr).not.toContain(first.dir)
    expect(other.stderr).not.toContain(String(winner.pid))
    expect(() => process.kill(winner.pid, 0)).not.toThrow()
    const json = await cli('sandbox', 'stop', '--json')
    expect(json.exitCode).toBe(1)
    expect(json.json<{error: {code: string}}>().error.code).toBe('SANDBOX_NOT_RUNNING')

    // Asked: every sandbox of this user on this machine, its config dir and how to stop it.
    const all = await cli('sandbox', 'status', '--all')
    expect(all.exitCode, all.stderr).toBe(0)
    const row = all.stdout.split('\n').find((line) => line.startsWith(`${winner.pid} `))
    expect(row, all.stdout).toMatch(new RegExp(`\\s${winner.url.replaceAll('.', '\\.')}\\s.*${first.dir}`))
    expect(all.stderr).toContain('PAYCTL_CONFIG_DIR=DIR payctl sandbox stop')
    const listed = await cli('sandbox', 'status', '--all', '--json')
    expect(listed.json<{sandboxes: unknown[]}>().sandboxes).toContainEqual({
      pid: winner.pid,
      url: winner.url,
      configDir: first.dir,
    })
  })

  it('status and stop agree on a sandbox started with another config dir; stopped, it is not running', async () => {
    const {url, pid} = winner
    // Another config dir whose local profile points at that sandbox (a copied profile file, or the
    // default port), with no record of having started it.
    const cli = cliFor(second.dir)
    const login = await cli(...loginArgs({url, credentials: profileAuth(first.dir)}))
    expect(login.exitCode, login.stderr).toBe(0)
    const status = await cli('sandbox', 'status', '--json')
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({url, pid})
    const stop = await cli('sandbox', 'stop', '--json')
    expect(stop.json()).toEqual({stopped: true, pid})
    const after = await cliFor(first.dir)('sandbox', 'status')
    expect(after.exitCode).toBe(1)
    expect(after.stderr).toContain('Try: payctl sandbox start')
  })
})

describe('sandbox start --detach, its banner for a person', () => {
  const temp = tempConfigDir()
  const outside = outsideDir()
  const target = join(outside.dir, 'victim.txt')
  const cli = cliFor(temp.dir)
  let started: CliResult

  beforeAll(async () => {
    writeFileSync(target, 'keep me\n', {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'sandbox.log'))
    started = await runCli(DETACH, {configDir: temp.dir, env: {CI: undefined}, timeoutMs: 30_000})
    expect(started.exitCode, started.stderr).toBe(0)
  })
  afterAll(async () => {
    await cli('sandbox', 'stop')
    temp.cleanup()
    outside.cleanup()
  })

  it('says it runs in the background, not to press Ctrl-C, and keeps the test credentials to the profile', () => {
    // stdout holds the result alone; the banner is on stderr, without the test credentials.
    expect(started.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/)
    expect(started.stderr).toContain('Running in the background')
    expect(started.stderr).not.toContain('Ctrl-C')
    expect(started.stdout + started.stderr).not.toContain(profileAuth(temp.dir).apiSecret)
    expect(started.stderr).not.toContain('Test credentials')
  })

  it('emulates the 100-a-minute rate limit by default, and says so', async () => {
    expect(started.stderr).toContain('rate limit spec')
    const status = await cli('sandbox', 'status', '--json')
    expect(status.json()).toMatchObject({rateLimit: 'spec'})
  })

  it('sandbox.log: a planted link is replaced by the log of a --detach sandbox, its target unchanged', () => {
    expect(readFileSync(target, 'utf8')).toBe('keep me\n')
    expect(isLink(join(temp.dir, 'sandbox.log'))).toBe(false)
    expect(modeOf(join(temp.dir, 'sandbox.log'))).toBe('600')
  })

  it('stops a sandbox it started that does not answer', async () => {
    const {pid} = (await cli('sandbox', 'status', '--json')).json<{pid: number}>()
    // Suspended, it answers nothing: not its health check, not a request.
    suspend(pid)
    const stopped = await cli('sandbox', 'stop')
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(stopped.stderr).toContain(`(pid ${pid}) does not answer; stopping it anyway`)
    expect(stopped.stdout).toContain(`Stopped the sandbox`)
    expect(() => process.kill(pid, 0)).toThrow()
  })
})

describe('sandbox start --detach --show-secrets, its secrets from the environment and stdin', () => {
  const temp = tempConfigDir()
  const cli = cliFor(temp.dir)
  let started: CliResult

  beforeAll(async () => {
    started = await runCli([...DETACH, '--show-secrets', '--api-secret', '-', '--rate-limit', 'off'], {
      configDir: temp.dir,
      timeoutMs: 30_000,
      input: `${API_SECRET}\n`,
      env: {PAYCTL_SANDBOX_SECRET_KEY: KEY, CI: 'true'},
    })
    expect(started.exitCode, started.stderr).toBe(0)
  })
  afterAll(async () => {
    await cli('sandbox', 'stop')
    temp.cleanup()
  })

  it('prints the test credentials on stderr, the URL alone on stdout', () => {
    expect(started.stderr).toContain('Test credentials')
    expect(started.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/)
  })

  it('reads them from the environment and from stdin with -', () => {
    expect(started.stderr).toMatch(new RegExp(`api secret\\s+${API_SECRET}\\n`))
    expect(started.stderr).toMatch(new RegExp(`secret key\\s+${KEY}\\s`))
    expect(profileAuth(temp.dir).apiSecret).toBe(API_SECRET)
  })

  it('drops the rate limit when asked, in CI too, and says so', async () => {
    expect(started.stderr).toContain('rate limit off')
    const status = await cli('sandbox', 'status', '--json')
    expect(status.json()).toMatchObject({rateLimit: 'off'})
  })
})

describe('sandbox start --detach --json --show-secrets --host 0.0.0.0, its secrets given as flags', () => {
  const temp = tempConfigDir()
  const cli = cliFor(temp.dir)
  let r: CliResult
  let started: Started

  beforeAll(async () => {
    r = await runCli(
      [
        ...DETACH,
        '--host',
        '0.0.0.0',
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
    started = r.json<Started>()
  })
  afterAll(async () => {
    await cli('sandbox', 'stop')
    temp.cleanup()
  })

  it('--json shows the API secret and secret key with --show-secrets: those of the profile', () => {
    expect(started.credentials).toMatchObject({secretKey: KEY, apiSecret: API_SECRET})
    expect(started.credentials.apiSecret).toBe(profileAuth(temp.dir).apiSecret)
    expect(started.credentials.secretKey).toMatch(/^test_/)
  })

  it('passes --secret-key and --api-secret to the background copy by environment, not argv', () => {
    const cmdline = readFileSync(`/proc/${started.pid}/cmdline`, 'utf8')
    expect(cmdline).toContain('sandbox')
    expect(cmdline).not.toContain('my-secret-key-value')
    expect(cmdline).not.toContain('my_api-secret-value')
  })

  it('warns on stderr that it binds beyond loopback, the --json document on stdout clean', () => {
    expect(r.stderr).toMatch(/warning: binding to 0\.0\.0\.0 exposes/)
    expect(() => JSON.parse(r.stdout)).not.toThrow()
  })

  it('sandbox stop still stops a sandbox listening on every address', async () => {
    const stop = await cli('sandbox', 'stop', '--json')
    expect(stop.json<{stopped: boolean; pid: number}>()).toEqual({stopped: true, pid: started.pid})
  })
})

describe('sandbox start in the foreground', () => {
  const plain = tempConfigDir()
  const exposedDir = tempConfigDir()
  const outside = outsideDir()
  const target = join(outside.dir, 'victim.txt')
  let loopback: Awaited<ReturnType<typeof foreground>>
  let exposed: Awaited<ReturnType<typeof foreground>>

  beforeAll(async () => {
    writeFileSync(target, 'keep me\n', {mode: 0o644})
    symlinkSync(target, join(plain.dir, 'sandbox.json'))
    const [one, two] = await Promise.allSettled([
      foreground(plain.dir, []),
      foreground(exposedDir.dir, ['--show-secrets', '--host', '0.0.0.0', '--quiet']),
    ])
    // Each that started is stopped in the end, whether or not the other did.
    if (one.status === 'fulfilled') loopback = one.value
    if (two.status === 'fulfilled') exposed = two.value
    for (const start of [one, two]) if (start.status === 'rejected') throw start.reason
  })
  afterAll(async () => {
    await Promise.all([loopback?.stop(), exposed?.stop()])
    plain.cleanup()
    exposedDir.cleanup()
    outside.cleanup()
  })

  it('--json writes the API secret and secret key [REDACTED] unless --show-secrets', () => {
    const {apiKey, apiSecret, partnerId} = profileAuth(plain.dir)
    expect(apiSecret).toMatch(/^sk_test_/)
    expect(loopback.started.credentials).toEqual({
      partnerId,
      apiKey,
      apiSecret: '[REDACTED]',
      secretKey: '[REDACTED]',
    })
    expect(exposed.started.credentials.apiSecret).toBe(profileAuth(exposedDir.dir).apiSecret)
    expect(exposed.started.credentials.secretKey).toMatch(/^test_/)
  })

  it('binds to loopback by default: unreachable on the machine’s other addresses', async () => {
    const {hostname, port} = new URL(loopback.started.url)
    expect(hostname).toBe('127.0.0.1')
    expect(await reachable('127.0.0.1', Number(port))).toBe(true)
    if (outsideAddress !== undefined) expect(await reachable(outsideAddress, Number(port))).toBe(false)
  })

  it('warns on stderr when told to bind elsewhere, and gives the profile a loopback address', async () => {
    // The --json document on stdout stays clean; the warning is on stderr.
    expect(exposed.stderr()).toMatch(
      /warning: binding to 0\.0\.0\.0 exposes the sandbox and its test credentials/,
    )
    const {url} = exposed.started
    if (outsideAddress !== undefined)
      expect(await reachable(outsideAddress, Number(new URL(url).port))).toBe(true)
    // The profile gets an address to connect to, not the bind address (which proxies would not skip).
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const profiles = readProfileFile(exposedDir.dir)
    expect(profiles.profiles.local.baseUrl).toBe(url)
  })

  it('replaces a symlink planted at sandbox.json instead of writing through it, at 0600', () => {
    expect(readFileSync(target, 'utf8')).toBe('keep me\n')
    const state = join(plain.dir, 'sandbox.json')
    expect(isLink(state)).toBe(false)
    expect(modeOf(state)).toBe('600')
    expect(JSON.parse(readFileSync(state, 'utf8')).pid).toBe(loopback.started.pid)
  })
})
