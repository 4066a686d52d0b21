import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cliEnv, payctl, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {startSandboxProcess} from '../helpers/sandbox.js'

const KEY = 'test_my-secret-key-value'
const API_SECRET = 'sk_test_my_api-secret-value'

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

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

  it('creates the config dir 0700 whatever the umask, so a first run never locks out the next', async () => {
    const temp = tempConfigDir()
    const dir = join(temp.dir, 'fresh')
    try {
      // The umask is a process's: the first run has one of its own.
      const command = `umask 002; exec '${process.execPath}' '${join(ROOT, 'bin', 'run.js')}' profiles list --json`
      const child = spawn('sh', ['-c', command], {env: cliEnv(dir), stdio: 'ignore'})
      const [code] = await once(child, 'close')
      expect(code).toBe(0)
      expect(modeOf(dir)).toBe('700')
      // The next run finds a config dir it accepts.
      const next = await payctl(['profiles', 'list', '--json'], {configDir: dir})
      expect(next.exitCode, next.stderr).toBe(0)
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
})

describe('nothing in the config dir is written through a symlink planted there', () => {
  const outsides: string[] = []
  afterAll(() => {
    for (const dir of outsides) rmSync(dir, {recursive: true, force: true})
  })
  /** A folder outside the config dir, for what a planted link points at. */
  const outside = () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-outside-'))
    outsides.push(dir)
    return dir
  }
  const isLink = (path: string) => lstatSync(path).isSymbolicLink()

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
})
