import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor} from '../helpers/cli.js'
import {type CustomerRecords, customerRecords} from '../helpers/customer-records.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {hasScript, screenOf} from '../helpers/terminal.js'

/**
 * A support person's lists of a customer (test/helpers/customer-records.ts) in an 80-column
 * terminal: payctl in a pseudo-terminal, against a sandbox served in the test process. Finding and
 * reading the same records in a pipe: test/commands/finding-users.test.ts.
 */

let sandbox: LocalSandbox
let records: CustomerRecords
beforeAll(async () => {
  sandbox = await startLocalSandbox({settleAfterSeconds: 3600})
  records = await customerRecords(cliFor(sandbox, {timeoutMs: 60_000}))
}, 120_000)
afterAll(async () => {
  await sandbox.stop()
})

/** The lines payctl shows in a pseudo-terminal of 80 columns (PAGER=cat), without styles; it exits 0. */
async function inTerminal(...args: string[]): Promise<string[]> {
  const {lines, code} = await screenOf(args, {cols: 80, configDir: sandbox.configDir})
  expect(code, lines.join('\n')).toBe(0)
  return lines
}

// Each test a process in a terminal of its own: all at once.
describe.runIf(hasScript)('in an 80-column terminal', () => {
  /** No line past 80 columns, and no time, amount or event name cut with "…". */
  function expectFitted(lines: string[]): void {
    for (const line of lines) expect(line.trimEnd().length, line).toBeLessThanOrEqual(80)
    const text = lines.join('\n')
    expect(text).not.toMatch(/\d…|[A-Z]{2}…|\.[a-z]*…|T\d\d:…/)
  }

  it.concurrent('transactions list --user shows when and the other side of each, under its row where it must', async () => {
    const {ada, bobs, card, ach, transfer} = records
    const lines = await inTerminal('transactions', 'list', '--user', ada)
    expectFitted(lines)
    const text = lines.join('\n')
    expect(lines.find((l) => l.startsWith('ID'))).toMatch(/CREATED/)
    expect(text).toMatch(/\d\d-\d\d \d\d:\d\d/)
    expect(text).toContain(bobs)
    for (const txn of [card, ach, transfer]) expect(text).toContain(txn)
    expect(text).toContain('1,000.00 USD')
  })

  it.concurrent('events list keeps whole event names and times', async () => {
    const lines = await inTerminal('events', 'list', '--user', records.ada)
    expectFitted(lines)
    expect(lines.join('\n')).toContain('transaction.failed')
    expect(lines.join('\n')).toContain('transaction.completed')
  })

  it.concurrent('wallets list --user drops the user column before any balance', async () => {
    const lines = await inTerminal('wallets', 'list', '--user', records.ada)
    expectFitted(lines)
    const header = lines.find((l) => l.startsWith('ID'))!
    expect(header).toMatch(/AVAILABLE/)
    expect(header).toMatch(/TOTAL/)
    expect(header).not.toMatch(/USER/)
  })

  it.concurrent('users list --email shows the email as the record has it, in whatever case it was asked', async () => {
    // The service matches the email in any case: the column may say more than the flag did.
    const [asStored, upper] = await Promise.all([
      inTerminal('users', 'list', '--email', 'Ada@Example.test'),
      inTerminal('users', 'list', '--email', 'ADA@EXAMPLE.TEST'),
    ])
    expectFitted(asStored)
    expect(asStored.join('\n')).toContain('Ada@Example.test')
    expect(asStored).toEqual(upper)
  })

  it.concurrent('audit list shows whole command lines and times', async () => {
    const lines = await inTerminal('audit', 'list', '--limit', '5')
    expectFitted(lines)
    const text = lines.join(' ').replace(/\s+/g, ' ')
    expect(text).toContain(`payctl transactions refund ${records.card} --amount 10.00USD`)
  })

  it.concurrent('users balance suggests no flag it does not take', async () => {
    const lines = await inTerminal('users', 'balance', records.ada)
    expectFitted(lines)
    expect(lines.join('\n')).not.toContain('--wide')
  })
})
