import {chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {runCli} from '../helpers/cli.js'
import {startFaultProxy} from '../helpers/fault-proxy.js'
import {type LocalSandbox, postToSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {converse, hasScript, screenOf} from '../helpers/terminal.js'

/**
 * Long output goes through the pager in a terminal, as git's and gh's do: payctl runs in a real
 * pseudo-terminal (`script`), and the pager is a small shell command that keeps what it was given
 * in a file of the test's, or a fake `less` first on PATH that keeps its arguments too.
 */
let sandbox: LocalSandbox
let user: string
let dir: string

const recorded = (name: string) => join(dir, name)
const read = (name: string) => readFileSync(recorded(name), 'utf8')
/** A pager that keeps its input, and the LESS it was given, in the test's directory. */
const recorder = () => `printf %s "$LESS" > '${recorded('less-env')}'; cat > '${recorded('paged')}'`

function inTerminal(args: string[], env: Record<string, string | undefined>) {
  return screenOf(args, {cols: 100, configDir: sandbox.configDir, env: {PAGER: undefined, ...env}})
}

/** Setup goes straight to the sandbox over HTTP. */
const post = <T>(path: string, body: unknown) => postToSandbox<T>(sandbox, path, body)

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  user = (
    await post<{id: string}>('/users', {email: 'paged@example.test', first_name: 'Pa', last_name: 'Ged'})
  ).id
  dir = mkdtempSync(join(tmpdir(), 'payctl-pager-'))
  // A `less` that says how it was called, then keeps its input as the recorder does.
  writeFileSync(
    join(dir, 'less'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > '${recorded('less-args')}'\n${recorder()}\n`,
  )
  chmodSync(join(dir, 'less'), 0o755)
})
beforeEach(() => {
  for (const name of ['paged', 'less-args', 'less-env']) rmSync(recorded(name), {force: true})
})
afterAll(async () => {
  await sandbox?.stop()
  if (dir !== undefined) rmSync(dir, {recursive: true, force: true})
})

describe.skipIf(!hasScript)('long output in a terminal', () => {
  it('users inspect goes through PAYCTL_PAGER, run with sh -c, colours and all', async () => {
    const {lines, code} = await inTerminal(['users', 'inspect', user], {
      PAYCTL_PAGER: recorder(),
      PAGER: 'not-this-one',
      NO_COLOR: undefined,
    })
    expect(code).toBe(0)
    const paged = read('paged')
    expect(paged).toContain('paged@example.test')
    // Colours pass on to the pager (less -R shows them).
    expect(paged).toMatch(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`))
    // The pager's own output is the terminal: the recorder showed nothing.
    expect(lines.join('\n')).not.toContain('paged@example.test')
    expect(read('less-env')).toBe('FRX')
  })

  it('goes through PAGER when PAYCTL_PAGER is not set, and its --json too', async () => {
    const {code} = await inTerminal(['users', 'inspect', user, '--json'], {PAGER: recorder()})
    expect(code).toBe(0)
    expect(JSON.parse(read('paged')).user.email).toBe('paged@example.test')
  })

  it('runs less -FRX by default, and leaves a LESS the user set', async () => {
    const path = `${dir}${delimiter}${process.env.PATH ?? ''}`
    const first = await inTerminal(['users', 'inspect', user], {PATH: path})
    expect(first.code).toBe(0)
    expect(read('less-args').trim().split('\n')).toEqual(['-FRX'])
    expect(read('less-env')).toBe('FRX')
    expect(read('paged')).toContain('paged@example.test')
    const mine = await inTerminal(['users', 'inspect', user], {PATH: path, LESS: 'S'})
    expect(mine.code).toBe(0)
    expect(read('less-env')).toBe('S')
  })

  it('prints directly with --no-pager, PAYCTL_PAGER empty or cat', async () => {
    for (const [extra, env] of [
      [['--no-pager'], {PAYCTL_PAGER: recorder()}],
      [[], {PAYCTL_PAGER: '', PAGER: recorder()}],
      [[], {PAYCTL_PAGER: 'cat'}],
    ] as const) {
      const {lines, code} = await inTerminal(['users', 'inspect', user, ...extra], env)
      expect(code).toBe(0)
      expect(lines.join('\n')).toContain('paged@example.test')
      expect(existsSync(recorded('paged'))).toBe(false)
    }
  })

  it('prints directly, with one warning, when the pager is not installed', async () => {
    const {lines, code} = await inTerminal(['users', 'inspect', user], {PAYCTL_PAGER: 'no-such-pager -R'})
    expect(code).toBe(0)
    expect(lines.filter((l) => l.includes('no-such-pager'))).toEqual([
      'pager no-such-pager not found: printing directly (PAYCTL_PAGER, PAGER or --no-pager choose)',
    ])
    expect(lines.join('\n')).toContain('paged@example.test')
  })

  it('stops quietly, exit 0, when the user quits the pager before the end', async () => {
    const {lines, code} = await inTerminal(['users', 'inspect', user], {
      PAYCTL_PAGER: `head -c 20 > '${recorded('paged')}'`,
    })
    expect(code).toBe(0)
    expect(read('paged')).toHaveLength(20)
    // Nothing but the spinner of before the output: no error, no EPIPE.
    expect(lines.filter((l) => !l.includes('Reading the story'))).toEqual([])
  })

  it('on Ctrl-C while paging, waits for the user to leave the pager, then exits 130', async () => {
    // A user with more top-ups than one page, whose later pages are held: payctl has printed its
    // first screen into the pager and waits for them.
    const busy = await post<{id: string}>('/users', {
      email: 'busy@example.test',
      first_name: 'B',
      last_name: 'Y',
    })
    const wallet = await post<{id: string}>('/wallets', {userId: busy.id, currency: 'GBP'})
    for (let batch = 0; batch < 11; batch++)
      await Promise.all(
        Array.from({length: 10}, (_, i) =>
          post('/transactions', {
            method: 'card',
            amount: 100 + batch * 10 + i,
            currency: 'GBP',
            destinationWalletId: wallet.id,
            paymentMethodId: 'pm_card_visa',
          }),
        ),
      )
    let release: () => void = () => undefined
    const held = new Promise<'pass'>((resolve) => {
      release = () => resolve('pass')
    })
    const proxy = await startFaultProxy(sandbox.url, (req) => (req.url?.includes('cursor=') ? held : 'pass'))
    try {
      // A pager that, like less, stays on Ctrl-C, shows the first line it gets (while the later
      // pages are held: the output streams through it), and is left a second after its input ends.
      const pager = `trap '' INT; IFS= read -r first; echo "PAGING $first"; { printf '%s\\n' "$first"; cat; } > '${recorded('paged')}'; sleep 1; echo PAGER-LEFT`
      const {screen, code} = await converse(['users', 'inspect', busy.id], [[/PAGING \S/, '\u0003']], {
        configDir: sandbox.configDir,
        env: {PAYCTL_PAGER: pager, PAGER: undefined, PAYCTL_BASE_URL: proxy.url},
      })
      expect(code).toBe(130)
      expect(proxy.seen.filter((r) => r.path.includes('cursor='))).toEqual([])
      expect(read('paged')).toContain('busy@example.test')
      expect(screen.indexOf('PAGER-LEFT')).toBeGreaterThan(0)
      expect(screen.indexOf('Interrupted.')).toBeGreaterThan(screen.indexOf('PAGER-LEFT'))
    } finally {
      release()
      await proxy.close()
    }
  }, 120_000)

  it('sandbox logs goes through the pager; --follow, a stream, never does', async () => {
    const paged = await inTerminal(['sandbox', 'logs'], {PAYCTL_PAGER: recorder()})
    expect(paged.code).toBe(0)
    expect(read('paged')).toContain('/v1/users')
    rmSync(recorded('paged'))
    const followed = await converse(['sandbox', 'logs', '--follow'], [[/\/v1\/users/, '\u0003']], {
      configDir: sandbox.configDir,
      env: {PAYCTL_PAGER: recorder(), PAGER: undefined},
    })
    expect(followed.code).toBe(0)
    expect(followed.screen).toContain('/v1/users')
    expect(existsSync(recorded('paged'))).toBe(false)
  })
})

it('never pages when stdout is not a terminal', async () => {
  const piped = await runCli(['users', 'inspect', user], {
    configDir: sandbox.configDir,
    env: {PAYCTL_PAGER: recorder()},
  })
  expect(piped.exitCode).toBe(0)
  expect(piped.stdout).toContain('paged@example.test')
  expect(existsSync(recorded('paged'))).toBe(false)
})
