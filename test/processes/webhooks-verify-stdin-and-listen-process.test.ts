import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliEnv, cliFor, ROOT, runCli} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'

interface CliError {
  error: {code: string; message: string; exitCode: number; details?: Record<string, unknown>}
}

/**
 * What of the webhooks commands only payctl's own process shows (the rest, in the test's process:
 * test/commands/webhooks.test.ts): a payload read from stdin, a secret made by two processes at
 * once, Ctrl-C, and the exit a supervisor sees. The sandbox runs in the test's process.
 */
describe('webhooks commands in a process of their own', () => {
  let sandbox: LocalSandbox
  let receiver: Receiver
  let cli: Cli

  beforeAll(async () => {
    sandbox = await startLocalSandbox({webhookRetries: 'fast'})
    cli = cliFor(sandbox)
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver?.close()
    await sandbox?.stop()
  })

  it('verify reads a real delivery from stdin', async () => {
    const registered = await cli(
      'webhooks',
      'register',
      '--url',
      receiver.url,
      '--events',
      'wallet.created',
      '--json',
    )
    expect(registered.exitCode, registered.stderr).toBe(0)
    const {secret} = registered.json<{secret: string}>()
    const triggered = await cli('webhooks', 'trigger', 'wallet.created')
    expect(triggered.exitCode, triggered.stderr).toBe(0)
    const [delivery] = await receiver.waitFor(1)
    const header = delivery!.headers['x-service-signature'] as string
    const r = await runCli(['webhooks', 'verify', '--secret', secret, '--signature', header, '--json'], {
      configDir: sandbox.configDir,
      input: delivery!.body.toString(),
    })
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({valid: true, secretIndex: 0})
  })

  it('listen --print-secret prints the same secret every time for a profile', async () => {
    const [a, b] = await Promise.all([
      // Two processes at once: the secret is made once per profile, whoever asks first.
      runCli(['webhooks', 'listen', '--print-secret'], {configDir: sandbox.configDir}),
      runCli(['webhooks', 'listen', '--print-secret'], {configDir: sandbox.configDir}),
    ])
    expect(a.exitCode, a.stderr).toBe(0)
    expect(a.stdout.trim()).toMatch(/^whsec_/)
    expect(b.stdout).toBe(a.stdout)
  })

  it('listen prints Ready with the secret, then a line per event and forward, on stdout; Ctrl-C ends it with 0', async () => {
    // No scheme: http:// is assumed.
    const forwardTo = receiver.url.replace(/^http:\/\//, '')
    const args = ['webhooks', 'listen', '--forward-to', forwardTo]
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {
      env: cliEnv(sandbox.configDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${text}" in:\n${stdout}\n${stderr}`)), 15_000)
        const check = () => {
          if (!stdout.includes(text)) return
          clearTimeout(timer)
          child.stdout.off('data', check)
          resolve()
        }
        child.stdout.on('data', check)
        check()
      })
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString()
    })
    try {
      await seen('Ready! Your webhook signing secret is whsec_')
      expect((await cli('webhooks', 'trigger', 'wallet.created')).exitCode).toBe(0)
      await seen('--> wallet.created [evt_')
      await seen(`<-- [200] POST http://${forwardTo}`)
      expect(stdout.indexOf('Ready!')).toBeLessThan(stdout.indexOf('--> wallet.created'))
    } finally {
      child.kill('SIGINT')
    }
    const [code] = await once(child, 'exit')
    expect(code, stderr).toBe(0)
  })

  it('listen --exit-on-failure exits non-zero instead of reconnecting, never printing Ready', async () => {
    const port = await freePort()
    // A process of its own: what a supervisor sees is the process ending, nothing left holding it.
    const r = await runCli(['webhooks', 'listen', '--exit-on-failure', '--json'], {
      configDir: sandbox.configDir,
      env: {PAYCTL_BASE_URL: `http://127.0.0.1:${port}`},
    })
    expect(r.exitCode).toBe(1)
    expect(r.stdout).not.toContain('"ready"')
    expect(r.json<CliError>().error.code).toBe('LISTEN_LINK_LOST')
    // One JSON object per line, the error included.
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1)
  })
})
