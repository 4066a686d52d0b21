import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, payctl, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {suspend} from '../helpers/suspend.js'

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

/** Wait until `ok()`, checking every 20 ms, failing with `what` past a generous deadline. */
async function until(what: string, ok: () => boolean, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`still not so after ${deadlineMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('local files', () => {
  let sandbox: LocalSandbox
  beforeAll(async () => {
    sandbox = await startLocalSandbox()
  })
  afterAll(() => sandbox.stop())

  it('makes the data file and its -wal and -shm 0600, wherever --data puts them', async () => {
    const temp = tempConfigDir()
    const dataDir = mkdtempSync(join(tmpdir(), 'payctl-data-'))
    chmodSync(dataDir, 0o755)
    const data = join(dataDir, 'shared.db')
    const own = await startLocalSandbox({data}, {configDir: temp.dir})
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
      await own.stop()
      temp.cleanup()
      rmSync(dataDir, {recursive: true, force: true})
    }
  })

  it('refuses a config dir others can write, and doctor says so with the fix', async () => {
    const temp = tempConfigDir()
    const cli = cliFor(temp.dir)
    try {
      const ok = await cli('profiles', 'list', '--json')
      expect(ok.exitCode, ok.stderr).toBe(0)
      chmodSync(temp.dir, 0o777)
      const refused = await cli('profiles', 'list', '--json')
      expect(refused.exitCode).not.toBe(0)
      expect(refused.json<{error: {code: string}}>().error.code).toBe('CONFIG_DIR_PERMISSIONS')
      const doctor = await cli('doctor', '--json')
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

  it('the profile file is created 0600, and refused while group or others can read it', async () => {
    const temp = tempConfigDir()
    const cli = cliFor(temp.dir)
    const {secretKey} = sandbox.credentials
    try {
      const login = await cli(
        'auth',
        'login',
        '--env',
        'local',
        '--base-url',
        sandbox.url,
        '--secret-key',
        secretKey,
      )
      expect(login.exitCode, login.stderr).toBe(0)
      const path = join(temp.dir, 'profiles.json')
      expect(statSync(path).mode & 0o777).toBe(0o600)
      for (const mode of [0o640, 0o604, 0o660]) {
        chmodSync(path, mode)
        const r = await cli('wallets', 'list', '--json')
        expect(r.exitCode, mode.toString(8)).toBe(1)
        expect(r.json<{error: {code: string}}>().error.code).toBe('PROFILE_FILE_PERMISSIONS')
        expect(r.stdout).not.toContain(secretKey)
      }
      chmodSync(path, 0o600)
      const ok = await cli('wallets', 'list')
      expect(ok.exitCode, ok.stderr).toBe(0)
    } finally {
      temp.cleanup()
    }
  })

  it('sandbox stop does not signal a process named by a tampered state file', async () => {
    const temp = tempConfigDir()
    // Stopped, the victim keeps what it is sent: a signal ends its stop (SIGCONT, or one that kills)
    // or waits, pending, as /proc shows at once. Nothing to wait for to see that none came.
    const victim = spawn('sleep', ['600'], {stdio: 'ignore'})
    const pid = victim.pid!
    const stat = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]
    const pending = () =>
      readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .filter((line) => /^(SigPnd|ShdPnd):/.test(line))
    suspend(pid)
    await until('the victim has stopped', () => stat() === 'T')
    // Whatever answers at the state file's URL claims the victim's pid.
    const liar = createServer((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'application/json'}).end(
        JSON.stringify({
          status: 'ok',
          version: '0.1.0',
          pid,
          responseShape: 'direct',
          rateLimit: 'off',
          tokenTtl: 60,
          startedAt: new Date().toISOString(),
        }),
      )
    })
    liar.listen(0, '127.0.0.1')
    await once(liar, 'listening')
    try {
      const state = {
        pid,
        url: `http://127.0.0.1:${(liar.address() as AddressInfo).port}`,
        host: '127.0.0.1',
        port: 1,
        data: ':memory:',
        startedAt: new Date().toISOString(),
      }
      writeFileSync(join(temp.dir, 'sandbox.json'), JSON.stringify(state), {mode: 0o600})
      const r = await payctl(['sandbox', 'stop', '--json'], {configDir: temp.dir})
      // Not a sandbox of this config dir after all: none to stop.
      expect(r.exitCode).toBe(1)
      expect(r.json<{error: {code: string}}>().error.code).toBe('SANDBOX_NOT_RUNNING')
      expect(stat()).toBe('T')
      expect(pending()).toEqual(['SigPnd:\t0000000000000000', 'ShdPnd:\t0000000000000000'])
    } finally {
      victim.kill('SIGKILL')
      await new Promise((resolve) => liar.close(resolve))
      temp.cleanup()
    }
  })
})
