import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cliEnv, ROOT, tempConfigDir} from '../helpers/cli.js'
import {hasScript} from '../helpers/terminal.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'

const BIN = join(ROOT, 'bin', 'run.js')
const config = tempConfigDir()
afterAll(() => config.cleanup())

/** Start payctl with `stdio`, and gather stdout and stderr (where piped) until it exits. */
async function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onStart?: (child: ReturnType<typeof spawn>) => void,
) {
  const child = spawn(command, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
  onStart?.(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return {code: code as number | null, stdout, stderr}
}

// Each test a process of its own: all at once.
describe.concurrent('payctl in pipes and terminals', () => {
  it('stops quietly, with its exit code, when the reader of its output has gone (payctl … | head)', async () => {
    const r = await run(process.execPath, [BIN, '--help'], cliEnv(config.dir), (child) =>
      child.stdout?.destroy(),
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })

  // A pseudo-terminal that reports no width, as `script` makes when it is not run from a terminal
  // itself (and as test harnesses that drive a CLI through a pty often do).
  it.runIf(hasScript)('shows no spinner in a terminal of no width, and ends with the error', async () => {
    const port = await freePort()
    const env = cliEnv(config.dir, {
      PAYCTL_BASE_URL: `http://127.0.0.1:${port}`,
      PAYCTL_SECRET_KEY: 'test_0123456789abcdef0123456789abcdef',
      PAYCTL_ENV: 'local',
    })
    const command = [process.execPath, BIN, 'users', 'get', 'usr_nobody'].map((a) => `'${a}'`).join(' ')
    const r = await run('script', ['-qec', `exec ${command}`, '/dev/null'], env)
    expect(r.code, r.stdout.slice(0, 2000)).toBe(1)
    expect(r.stdout).toContain('NETWORK_ERROR')
    // A spinner redrawing without end would write megabytes before the retries run out.
    expect(r.stdout.length).toBeLessThan(4_000)
  })

  it.runIf(hasScript)(
    'shows the spinner without colour under NO_COLOR, in a terminal of some width',
    async () => {
      const port = await freePort()
      const env = cliEnv(config.dir, {
        PAYCTL_BASE_URL: `http://127.0.0.1:${port}`,
        PAYCTL_SECRET_KEY: 'test_0123456789abcdef0123456789abcdef',
        PAYCTL_ENV: 'local',
        NO_COLOR: '1',
      })
      const command = [process.execPath, BIN, 'users', 'get', 'usr_nobody'].map((a) => `'${a}'`).join(' ')
      const r = await run('script', ['-qec', `stty cols 100; exec ${command}`, '/dev/null'], env)
      expect(r.code).toBe(1)
      expect(r.stdout).toContain('Fetching') // the spinner ran, through the retries
      // No colour or text style (cursor moves and line clearing are not styles).
      expect(r.stdout).not.toMatch(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`))
    },
  )
})
