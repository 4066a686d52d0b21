import {afterEach, describe, expect, it} from 'vitest'
import {runCli, tempConfigDir} from '../helpers/cli.js'

describe('sandbox lifecycle', () => {
  const temp = tempConfigDir()
  const cli = (...args: string[]) => runCli(args, {configDir: temp.dir, timeoutMs: 30_000})
  afterEach(async () => {
    await cli('sandbox', 'stop')
  })

  it('starts in the background, reports its status, serves the CLI, and stops', async () => {
    const started = await cli(
      'sandbox',
      'start',
      '--detach',
      '--port',
      '0',
      '--data',
      ':memory:',
      '--rate-limit',
      'off',
      '--json',
    )
    expect(started.exitCode, started.stderr).toBe(0)
    const {url, pid} = started.json<{url: string; pid: number}>()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

    const status = await cli('sandbox', 'status', '--json')
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({status: 'ok', url, pid, rateLimit: 'off', responseShape: 'envelope'})

    // The local profile it wrote works at once.
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

    const again = await cli('sandbox', 'start', '--detach', '--port', '0')
    expect(again.exitCode).toBe(2)
    expect(again.stderr).toContain('SANDBOX_RUNNING')

    const stopped = await cli('sandbox', 'stop', '--json')
    expect(stopped.json()).toEqual({stopped: true, pid})
    const after = await cli('sandbox', 'status')
    expect(after.exitCode).toBe(1)
    expect(after.stderr).toContain('Try: payctl sandbox start')
  })

  it('prints an OpenAPI 3.1 document with every path of the contract', async () => {
    const r = await cli('sandbox', 'openapi')
    expect(r.exitCode).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.openapi).toMatch(/^3\.1/)
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/wallets', '/v1/wallets/{id}', '/v1/transactions', '/v1/auth/token']),
    )
  })

  it('refuses a bad setting with a usage error', async () => {
    const r = await cli('sandbox', 'start', '--port', '0', '--secret-key', 'live_nope', '--data', ':memory:')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('SANDBOX_START_FAILED')
  })
})
