import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {cliEnv, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'

const BIN = join(ROOT, 'bin', 'run.js')
const first = tempConfigDir()
const second = tempConfigDir()
afterAll(() => {
  first.cleanup()
  second.cleanup()
})
afterEach(async () => {
  await runCli(['sandbox', 'stop'], {configDir: first.dir})
  await runCli(['sandbox', 'stop'], {configDir: second.dir})
})

describe('sandbox start --detach, status and stop', () => {
  it('says it runs in the background, not to press Ctrl-C', async () => {
    const r = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:'], {
      configDir: first.dir,
    })
    expect(r.exitCode, r.stderr).toBe(0)
    // stdout holds the result alone; the banner is on stderr, without the test credentials.
    expect(r.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/)
    expect(r.stderr).toContain('Running in the background')
    expect(r.stderr).not.toContain('Ctrl-C')
    const profiles = JSON.parse(readFileSync(join(first.dir, 'profiles.json'), 'utf8'))
    const {apiSecret} = profiles.profiles.local.auth
    expect(r.stdout + r.stderr).not.toContain(apiSecret)
    expect(r.stderr).not.toContain('Test credentials')
    await runCli(['sandbox', 'stop'], {configDir: first.dir})

    const shown = await runCli(
      ['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--show-secrets'],
      {
        configDir: first.dir,
      },
    )
    expect(shown.exitCode, shown.stderr).toBe(0)
    expect(shown.stderr).toContain('Test credentials')
    expect(shown.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/)
  })

  it('--json keeps the API secret and secret key out of stdout unless --show-secrets, detached or not', async () => {
    type Started = {url: string; credentials: Record<string, string>}
    const profile = () =>
      JSON.parse(readFileSync(join(first.dir, 'profiles.json'), 'utf8')).profiles.local.auth
    // In the foreground: read its JSON document, then stop it.
    const foreground = async (extra: string[]): Promise<Started> => {
      const args = [BIN, 'sandbox', 'start', '--port', '0', '--data', ':memory:', '--json', ...extra]
      const child = spawn(process.execPath, args, {
        env: cliEnv(first.dir),
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      let out = ''
      const started = await new Promise<Started>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          try {
            resolve(JSON.parse(out) as Started)
          } catch {
            // Not whole yet.
          }
        })
        child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${out}`)))
      })
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
      return started
    }
    const detached = async (extra: string[]): Promise<Started> => {
      const r = await runCli(
        ['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--json', ...extra],
        {
          configDir: first.dir,
        },
      )
      expect(r.exitCode, r.stderr).toBe(0)
      await runCli(['sandbox', 'stop'], {configDir: first.dir})
      return r.json<Started>()
    }
    for (const start of [foreground, detached]) {
      const hidden = await start([])
      const {apiKey, apiSecret, partnerId} = profile()
      expect(apiSecret, start.name).toMatch(/^sk_test_/)
      expect(hidden.credentials, start.name).toEqual({
        partnerId,
        apiKey,
        apiSecret: '[REDACTED]',
        secretKey: '[REDACTED]',
      })
      const shown = await start(['--show-secrets'])
      expect(shown.credentials.apiSecret, start.name).toBe(profile().apiSecret)
      expect(shown.credentials.secretKey, start.name).toMatch(/^test_/)
    }
  })

  it('two starts for one config dir at once: one runs, the other is refused with the fix, taking nothing over', async () => {
    const start = () =>
      runCli(['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--json'], {
        configDir: first.dir,
        timeoutMs: 30_000,
      })
    const both = await Promise.all([start(), start()])
    const won = both.filter((r) => r.exitCode === 0)
    const lost = both.filter((r) => r.exitCode !== 0)
    expect(won).toHaveLength(1)
    expect(lost).toHaveLength(1)
    expect(lost[0]!.exitCode).toBe(2)
    const {error} = lost[0]!.json<{error: {code: string; suggestions: string[]}}>()
    expect(error.code).toBe('SANDBOX_RUNNING')
    expect(error.suggestions.join('\n')).toContain(
      'PAYCTL_CONFIG_DIR="$(mktemp -d)" payctl sandbox start --port 0',
    )
    const winner = won[0]!.json<{url: string; pid: number}>()
    const profiles = JSON.parse(readFileSync(join(first.dir, 'profiles.json'), 'utf8'))
    expect(profiles.profiles.local.baseUrl).toBe(winner.url)
    const stopped = await runCli(['sandbox', 'stop', '--json'], {configDir: first.dir})
    expect(stopped.json()).toEqual({stopped: true, pid: winner.pid})
  })

  it('stop in a config dir that started none says which run elsewhere and how to stop each, stopping none', async () => {
    const up = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--json'], {
      configDir: first.dir,
    })
    expect(up.exitCode, up.stderr).toBe(0)
    const {pid} = up.json<{pid: number}>()
    const other = await runCli(['sandbox', 'stop'], {configDir: second.dir})
    expect(other.stderr).toContain('No sandbox was started with this config dir')
    expect(other.stderr).toContain(`pid ${pid}: PAYCTL_CONFIG_DIR=${first.dir} payctl sandbox stop`)
    expect(() => process.kill(pid, 0)).not.toThrow()
  })

  it('emulates the 100-a-minute limit by default, in CI too, and drops it when asked', async () => {
    for (const [env, args, expected] of [
      [{CI: undefined}, [], 'spec'],
      [{CI: 'true'}, [], 'spec'],
      [{CI: 'true'}, ['--rate-limit', 'off'], 'off'],
    ] as const) {
      const up = await runCli(
        ['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', ...args],
        {
          configDir: first.dir,
          env,
        },
      )
      expect(up.exitCode, up.stderr).toBe(0)
      expect(up.stderr).toContain(`rate limit ${expected}`)
      const status = await runCli(['sandbox', 'status', '--json'], {configDir: first.dir})
      expect(status.json(), JSON.stringify(env)).toMatchObject({rateLimit: expected})
      await runCli(['sandbox', 'stop'], {configDir: first.dir})
    }
  })

  it('a busy port is the same usage error, with a --port hint, with and without --detach', async () => {
    const port = await freePort()
    const up = await runCli(['sandbox', 'start', '--detach', '--port', String(port), '--data', ':memory:'], {
      configDir: first.dir,
    })
    expect(up.exitCode, up.stderr).toBe(0)
    for (const detach of [[], ['--detach']]) {
      const r = await runCli(
        ['sandbox', 'start', ...detach, '--port', String(port), '--data', ':memory:', '--json'],
        {
          configDir: second.dir,
        },
      )
      const {error} = r.json<{error: {code: string; suggestions: string[]}}>()
      expect(error.code, detach.join('')).toBe('PORT_IN_USE')
      expect(error.suggestions.join(' ')).toContain('--port')
      expect(r.exitCode, detach.join('')).toBe(2)
    }
  })

  it('status and stop agree on a sandbox started with another config dir', async () => {
    const up = await runCli(
      ['sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--json', '--show-secrets'],
      {configDir: first.dir},
    )
    const {url, pid} = up.json<{url: string; pid: number}>()
    // Another config dir whose local profile points at that sandbox (a copied profile file, or the
    // default port), with no record of having started it.
    const login = await runCli(['auth', 'login', '--env', 'local', '--base-url', url, '--secret-key', '-'], {
      configDir: second.dir,
      input: up.json<{credentials: {secretKey: string}}>().credentials.secretKey,
    })
    expect(login.exitCode, login.stderr).toBe(0)
    const status = await runCli(['sandbox', 'status', '--json'], {configDir: second.dir})
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({url, pid})
    const stop = await runCli(['sandbox', 'stop', '--json'], {configDir: second.dir})
    expect(stop.json()).toEqual({stopped: true, pid})
    const after = await runCli(['sandbox', 'status'], {configDir: first.dir})
    expect(after.exitCode).toBe(1)
  })

  it('the background sandbox does not hold the caller’s other descriptors open', async () => {
    // A pipe the caller reads to its end, on a high descriptor, as bash hands one down for
    // `2> >(grep …)` (fd 63 or so).
    const fd = 63
    const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe', ...Array(fd - 3).fill('ignore'), 'pipe']
    const args = [BIN, 'sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:']
    const child = spawn(process.execPath, args, {env: cliEnv(first.dir), stdio})
    const extra = (child.stdio as unknown as NodeJS.ReadableStream[])[fd]!
    extra.resume()
    const ended = once(extra, 'end').then(() => true)
    const [code] = await once(child, 'exit')
    expect(code).toBe(0)
    const status = await runCli(['sandbox', 'status'], {configDir: first.dir})
    expect(status.exitCode).toBe(0) // still running
    const result = await Promise.race([ended, new Promise((r) => setTimeout(() => r(false), 5_000))])
    expect(result).toBe(true)
  })
})
