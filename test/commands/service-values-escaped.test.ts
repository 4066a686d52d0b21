import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {type Cli, cliFor} from '../helpers/cli.js'
import {
  BEL,
  BIDI,
  C1_LABEL,
  C1_SHOWN,
  CSI8,
  ESC,
  type HostileRecords,
  hostileRecords,
  LABEL,
  RAW_CONTROL,
} from '../helpers/hostile-values.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * Values from the service that would drive a terminal (test/helpers/hostile-values.ts) are printed
 * escaped in every human format, and as they are where a program reads them. In a terminal itself:
 * test/processes/terminal-escapes.test.ts.
 */

let sandbox: LocalSandbox
let cli: Cli
let records: HostileRecords

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox)
  records = await hostileRecords(cli)
})
afterAll(() => sandbox.stop())

describe('values from the service cannot drive the terminal', () => {
  it('escapes control characters in cards, tables, csv and messages, but not in --json', async () => {
    const {user, wallet} = records
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
    const {user, eurWallet, cardEvent} = records
    const human = {
      'wallets list': await cli('wallets', 'list', '--user', user),
      'wallets list -o csv': await cli('wallets', 'list', '--user', user, '--output', 'csv'),
      'wallets list -o yaml': await cli('wallets', 'list', '--user', user, '--output', 'yaml'),
      'wallets get': await cli('wallets', 'get', eurWallet),
      'events list': await cli('events', 'list'),
      'events list -o csv': await cli('events', 'list', '--output', 'csv'),
      'events list -o yaml': await cli('events', 'list', '--output', 'yaml'),
      'events get': await cli('events', 'get', cardEvent),
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
    const missing = await cli('wallets', 'get', `wal_${CSI8}\u200f\u202e`)
    expect(missing.exitCode).not.toBe(0)
    expect(missing.stderr.replaceAll('\n', '')).not.toMatch(RAW_CONTROL)
    expect(missing.stderr).not.toMatch(BIDI)
    expect(missing.stderr).toContain('wal_\\x9b\\u200f\\u202e')
    // ndjson and --json are for programs: the label as it is.
    const ndjson = await cli('wallets', 'list', '--user', user, '--output', 'ndjson')
    const labels = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).label)
    expect(labels).toContain(C1_LABEL)
    expect((await cli('events', 'get', cardEvent, '--json')).json<{data: {label: string}}>().data.label).toBe(
      C1_LABEL,
    )
  })

  it('keeps an error that echoes a value from the service to its own lines', async () => {
    // The sandbox's "No wallet …" echoes the id: a newline in it would add a line passing for payctl's.
    const r = await cli('wallets', 'get', 'wal_x\nTry: payctl forged')
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('NOT_FOUND: No wallet wal_x\\x0aTry: payctl forged\n')
    expect(r.stderr.split('\n').filter((line) => line.startsWith('Try:'))).toEqual([])
  })
})
