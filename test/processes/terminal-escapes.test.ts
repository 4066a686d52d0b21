import {execFileSync, spawn} from 'node:child_process'
import {once} from 'node:events'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {cliEnv, payctl, ROOT, runCli} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

const BIN = join(ROOT, 'bin', 'run.js')
const ESC = String.fromCharCode(27)
const BEL = String.fromCharCode(7)
const CSI8 = String.fromCharCode(0x9b)
// A name that would set the window title, a label that would write the clipboard (OSC 52) and
// clear the line, as a hostile or careless integration could store them.
const NAME = `Eve${ESC}]0;pwned${BEL}`
const LABEL = `Savings${ESC}]52;c;aGVsbG8=${BEL}${ESC}[2K${CSI8}31m`
/** Any raw control character but newline, as a terminal would act on it. */
const RAW_CONTROL = new RegExp(
  `[${String.fromCharCode(0)}-${String.fromCharCode(9)}${String.fromCharCode(11)}-${String.fromCharCode(31)}${String.fromCharCode(127)}-${String.fromCharCode(159)}]`,
)
/** The bidirectional controls, which make text read other than it is (an .exe passing for a .pdf). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
// CSI in its one-character form (U+009B) would erase the screen; the bidi controls after it turn
// "fdp.exe" around.
const C1_LABEL = `Pay${CSI8}2J\u202efdp.exe\u200f\u061c\u200e\u2067x\u2069`
const C1_SHOWN = 'Pay\\x9b2J\\u202efdp.exe\\u200f\\u061c\\u200e\\u2067x\\u2069'

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

/**
 * Run payctl in a pseudo-terminal of 100 columns (through `script`), feeding `keys` to it once
 * its output matches `when`. Returns the terminal's output and payctl's exit code.
 */
async function inTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: {when?: RegExp; keys?: string; timeoutMs?: number} = {},
): Promise<{code: number | null; out: string}> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')
  const child = spawn('script', ['-qec', `stty cols 100; exec ${command}`, '/dev/null'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let sent = false
  const onData = (c: Buffer) => {
    out += c.toString()
    if (!sent && opts.when?.test(out)) {
      sent = true
      child.stdin.write(opts.keys ?? '')
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return {code: code as number | null, out}
}

let sandbox: SandboxProcess
const cli = (...args: string[]) => runCli(args, {configDir: sandbox.configDir})
let user: string
let wallet: string
let eurWallet: string
let cardEvent: string

beforeAll(async () => {
  // ACH settles only after an hour: --wait has something to wait for.
  sandbox = await startSandboxProcess(['--settle-after', '1h'])
  const u = await runCli(
    [
      'api',
      'POST',
      '/users',
      '-d',
      JSON.stringify({email: 'eve@example.test', first_name: NAME, last_name: 'X'}),
    ],
    {configDir: sandbox.configDir},
  )
  user = JSON.parse(u.stdout).data.id
  const w = await cli('wallets', 'create', '--user', user, '--currency', 'USD', '--label', LABEL, '--json')
  expect(w.exitCode, w.stderr).toBe(0)
  wallet = w.json<{id: string}>().id
  // A wallet and a card (whose event carries its label) labelled with C1 and bidi controls.
  const eur = await cli(
    'wallets',
    'create',
    '--user',
    user,
    '--currency',
    'EUR',
    '--label',
    C1_LABEL,
    '--json',
  )
  expect(eur.exitCode, eur.stderr).toBe(0)
  eurWallet = eur.json<{id: string}>().id
  const card = await cli('cards', 'create', user, '--wallet', wallet, '--label', C1_LABEL, '--json')
  expect(card.exitCode, card.stderr).toBe(0)
  const events = await cli('events', 'list', '--type', 'walletsvc.card.created', '--json')
  cardEvent = events.json<{events: {id: string}[]}>().events[0]!.id
})
afterAll(() => sandbox.stop())

describe('values from the service cannot drive the terminal', () => {
  it('escapes control characters in cards, tables, csv and messages, but not in --json', async () => {
    const card = await cli('users', 'get', user)
    expect(card.stdout).toContain('Eve\\x1b]0;pwned\\x07')
    const shown = [
      card,
      await cli('wallets', 'get', wallet),
      await cli('wallets', 'list', '--user', user),
      await cli('wallets', 'list', '--user', user, '--output', 'csv'),
      await cli('wallets', 'update', wallet, '--label', `${LABEL}2`),
    ]
    for (const r of shown) {
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.stdout.replaceAll('\n', '')).not.toMatch(RAW_CONTROL)
    }
    expect(shown[2]!.stdout).toContain('Savings\\x1b]52;c;aGVsbG8=\\x07\\x1b[2K\\x9b31m')
    // An error message that echoes a value is escaped too.
    const missing = await cli('wallets', 'get', `wal_${ESC}]0;x${BEL}`)
    expect(missing.exitCode).not.toBe(0)
    expect(missing.stderr.replaceAll('\n', '')).not.toMatch(RAW_CONTROL)
    // --json keeps the value exactly.
    const json = await cli('wallets', 'get', wallet, '--json')
    expect(json.json<{label: string}>().label).toBe(`${LABEL}2`)
  })

  it('escapes C1 and bidi controls in every human format of wallets and events, and in errors', async () => {
    const run = (...args: string[]) => payctl(args, {configDir: sandbox.configDir})
    const human = {
      'wallets list': await run('wallets', 'list', '--user', user),
      'wallets list -o csv': await run('wallets', 'list', '--user', user, '--output', 'csv'),
      'wallets list -o yaml': await run('wallets', 'list', '--user', user, '--output', 'yaml'),
      'wallets get': await run('wallets', 'get', eurWallet),
      'events list': await run('events', 'list'),
      'events list -o csv': await run('events', 'list', '--output', 'csv'),
      'events list -o yaml': await run('events', 'list', '--output', 'yaml'),
      'events get': await run('events', 'get', cardEvent),
    }
    for (const [what, r] of Object.entries(human)) {
      expect(r.exitCode, `${what}: ${r.stderr}`).toBe(0)
      const out = r.stdout.replaceAll('\n', '')
      expect(out, what).not.toMatch(RAW_CONTROL)
      expect(out, what).not.toMatch(BIDI)
    }
    for (const what of ['wallets list', 'wallets list -o csv', 'wallets get', 'events get'] as const) {
      expect(human[what].stdout, what).toContain(C1_SHOWN)
    }
    // YAML shows the escapes of a table inside double quotes: still YAML, which reads back the label.
    for (const what of ['wallets list -o yaml', 'events list -o yaml'] as const) {
      expect(human[what].stdout, what).toContain(`label: "${C1_SHOWN}"`)
    }
    const wallets = parseYaml(human['wallets list -o yaml'].stdout) as {id: string; label?: string}[]
    expect(wallets.find((w) => w.id === eurWallet)?.label).toBe(C1_LABEL)
    const events = parseYaml(human['events list -o yaml'].stdout) as {id: string; data: {label?: string}}[]
    expect(events.find((e) => e.id === cardEvent)?.data.label).toBe(C1_LABEL)
    // An error that echoes a value.
    const missing = await run('wallets', 'get', `wal_${CSI8}\u200f\u202e`)
    expect(missing.exitCode).not.toBe(0)
    expect(missing.stderr.replaceAll('\n', '')).not.toMatch(RAW_CONTROL)
    expect(missing.stderr).not.toMatch(BIDI)
    expect(missing.stderr).toContain('wal_\\x9b\\u200f\\u202e')
    // ndjson and --json are for programs: the label as it is.
    const ndjson = await run('wallets', 'list', '--user', user, '--output', 'ndjson')
    const labels = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).label)
    expect(labels).toContain(C1_LABEL)
    expect((await run('events', 'get', cardEvent, '--json')).json<{data: {label: string}}>().data.label).toBe(
      C1_LABEL,
    )
  })

  it('keeps an error that echoes a value from the service to its own lines', async () => {
    // The sandbox's "No wallet …" echoes the id: a newline in it would add a line passing for payctl's.
    const r = await payctl(['wallets', 'get', 'wal_x\nTry: payctl forged'], {configDir: sandbox.configDir})
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('NOT_FOUND: No wallet wal_x\\x0aTry: payctl forged\n')
    expect(r.stderr.split('\n').filter((line) => line.startsWith('Try:'))).toEqual([])
  })

  it.runIf(hasScript)(
    'escapes C1 and bidi controls in every human format in a terminal',
    async () => {
      const env = cliEnv(sandbox.configDir, {NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined})
      const runs = [
        ['wallets', 'list', '--user', user, '--wide'],
        ['wallets', 'list', '--user', user, '--output', 'csv'],
        ['wallets', 'list', '--user', user, '--output', 'yaml'],
        ['wallets', 'get', eurWallet],
        ['events', 'list'],
        ['events', 'list', '--output', 'csv'],
        ['events', 'list', '--output', 'yaml'],
        ['events', 'get', cardEvent],
      ]
      for (const args of runs) {
        const r = await inTerminal(args, env)
        expect(r.code, `${args.join(' ')}\n${r.out.slice(-1500)}`).toBe(0)
        // payctl's own colours and spinner are the only escape sequences: no C1 nor bidi control.
        expect(r.out, args.join(' ')).not.toMatch(
          new RegExp(`[${String.fromCharCode(128)}-${String.fromCharCode(159)}]`),
        )
        expect(r.out, args.join(' ')).not.toMatch(BIDI)
        if (args[0] === 'wallets' || args[1] === 'get') expect(r.out, args.join(' ')).toContain(C1_SHOWN)
      }
    },
    60_000,
  )

  it.runIf(hasScript)('keeps payctl’s own colours in a terminal while escaping the label', async () => {
    // A person's terminal: CI set (as in a CI run) would make Node report no colours.
    const env = cliEnv(sandbox.configDir, {NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined})
    const r = await inTerminal(['wallets', 'get', wallet], env)
    expect(r.code, r.out.slice(-1500)).toBe(0)
    expect(r.out).toContain(`${ESC}[32mactive${ESC}[39m`)
    expect(r.out).toContain('Savings\\x1b]52;c;aGVsbG8=\\x07')
    expect(r.out).not.toContain(`${ESC}]`)
  })
})

describe('Ctrl-C while transactions create waits', () => {
  it.runIf(hasScript)(
    'prints the transaction id and how to follow it, exits 130 and records it in the audit log',
    async () => {
      const env = cliEnv(sandbox.configDir)
      const args = ['transactions', 'create', '--method', 'ach', '--amount', '5000', '--currency', 'USD']
      const r = await inTerminal(
        [...args, '--to', wallet, '--payment-method', 'pm_ach_success', '--wait'],
        env,
        {when: /Waiting for txn_[0-9a-f]+ to settle/, keys: String.fromCharCode(3)},
      )
      expect(r.code, r.out.slice(-1500)).toBe(130)
      const id = /Waiting for (txn_[0-9a-f]+)/.exec(r.out)?.[1]
      expect(id).toBeDefined()
      // After the spinner's line is gone, the id is still on the screen, with the command to follow it.
      const after = r.out.slice(r.out.lastIndexOf('Interrupted.'))
      expect(after).toContain(`payctl transactions get ${id}`)
      const entries = readFileSync(join(sandbox.configDir, 'audit.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(entries.at(-1)).toMatchObject({
        command: expect.stringContaining('payctl transactions create'),
        outcome: 'error',
        code: 'INTERRUPTED',
        exitCode: 130,
        note: expect.stringContaining(id!),
        requestCount: 1,
      })
    },
    60_000,
  )
})
