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
    expect(status.json<{inspector: string}>().inspector).toBe(`${url}/_sandbox/ui`)
    const card = await cli('sandbox', 'status')
    expect(card.stdout).toMatch(new RegExp(`inspector\\s+${url}/_sandbox/ui`))

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

  it('stops a sandbox it started that does not answer', async () => {
    const started = await cli('sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--json')
    expect(started.exitCode, started.stderr).toBe(0)
    const {pid} = started.json<{pid: number}>()
    // Suspended, it answers nothing: not its health check, not a request.
    process.kill(pid, 'SIGSTOP')
    const stopped = await cli('sandbox', 'stop')
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(stopped.stderr).toContain(`(pid ${pid}) does not answer; stopping it anyway`)
    expect(stopped.stdout).toContain(`Stopped the sandbox`)
    expect(() => process.kill(pid, 0)).toThrow()
  })
})
