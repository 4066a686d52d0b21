import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliEnv, payctl, ROOT} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {hasScript} from '../helpers/terminal.js'

/**
 * A support person with a ticket about a user, in an 80-column terminal: finding the user by
 * email, following their events and transactions in time, and reading what is found (README, "For
 * support staff").
 */

let sandbox: SandboxProcess
const cli = (...args: string[]) => payctl(args, {configDir: sandbox.configDir, timeoutMs: 60_000})
const id = async (...args: string[]) => {
  const r = await cli(...args)
  expect(r.exitCode, r.stderr).toBe(0)
  return r.stdout.trim()
}
const json = async <T>(...args: string[]): Promise<T> => {
  const r = await cli(...args, '--json')
  expect(r.exitCode, r.stderr).toBe(0)
  return r.json<T>()
}

/** Run payctl in a pseudo-terminal of `cols` columns (PAGER=cat): the lines it shows, without styles. */
async function inTerminal(cols: number, ...args: string[]): Promise<string[]> {
  const command = [process.execPath, join(ROOT, 'bin', 'run.js'), ...args].map((a) => `'${a}'`).join(' ')
  const child = spawn('script', ['-qec', `stty cols ${cols}; ${command}`, '/dev/null'], {
    env: cliEnv(sandbox.configDir, {CI: undefined, PAGER: 'cat'}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString()
  })
  const [code] = await once(child, 'close')
  expect(code, out).toBe(0)
  // A spinner redraws its line from the first column: each frame a line of its own here.
  return stripVTControlCharacters(out.replace(new RegExp(`${String.fromCharCode(27)}\\[\\d*G`, 'g'), '\n'))
    .split(/\r?\n/)
    .map((l) => l.replace(/\r/g, ''))
    .filter((l) => l.trim() !== '')
}

let ada: string
let usd: string
let eur: string
let bob: string
let bobs: string
let card: string
let ach: string
let transfer: string
beforeAll(async () => {
  sandbox = await startSandboxProcess(['--settle-after', '3600'])
  ada = await id(
    'users',
    'create',
    '--email',
    'Ada@Example.test',
    '--first-name',
    'Ada',
    '--last-name',
    'Lovelace',
  )
  await id(
    'users',
    'create',
    '--email',
    'grace@example.test',
    '--first-name',
    'Grace',
    '--last-name',
    'Hopper',
    '--external-id',
    'crm-7',
  )
  bob = await id('users', 'create', '--email', 'bob@example.test', '--first-name', 'Bob', '--last-name', 'B')
  usd = await id(
    'wallets',
    'create',
    '--user',
    ada,
    '--currency',
    'USD',
    '--label',
    'everyday spending, groceries and rent',
  )
  eur = await id('wallets', 'create', '--user', ada, '--currency', 'EUR')
  bobs = await id('wallets', 'create', '--user', bob, '--currency', 'USD')
  card = await id(
    'transactions',
    'create',
    '--method',
    'card',
    '--amount',
    '100.00USD',
    '--to',
    usd,
    '--payment-method',
    'pm_card_visa',
  )
  ach = await id(
    'transactions',
    'create',
    '--method',
    'ach',
    '--amount',
    '1000.00USD',
    '--to',
    usd,
    '--payment-method',
    'pm_ach_returned',
  )
  transfer = await id(
    'transactions',
    'create',
    '--method',
    'wallet',
    '--amount',
    '40.00USD',
    '--from',
    usd,
    '--to',
    bobs,
  )
  await id('transactions', 'refund', card, '--amount', '10.00USD')
  expect((await cli('sandbox', 'advance', '2d')).exitCode).toBe(0)
}, 120_000)
afterAll(async () => {
  await sandbox.stop()
})

describe('finding the customer', () => {
  it('users list finds them by email in any case, by external id and by name', async () => {
    const byEmail = await json<{users: {id: string}[]}>('users', 'list', '--email', 'ada@example.test')
    expect(byEmail.users.map((u) => u.id)).toEqual([ada])
    const byExternal = await json<{users: {email: string}[]}>('users', 'list', '--external-id', 'crm-7')
    expect(byExternal.users.map((u) => u.email)).toEqual(['grace@example.test'])
    const table = await cli('users', 'list', '--name', 'love')
    expect(table.stdout).toMatch(new RegExp(`${ada}\\s+Ada@Example.test\\s+Ada Lovelace`))
    expect((await cli('users', 'list', '--email', 'nobody@example.test')).stdout).toMatch(/^No users\./)
  })
})

describe('following them', () => {
  const events = async (...args: string[]) =>
    (
      await json<{events: {event: string; data: Record<string, unknown>}[]}>(
        'events',
        'list',
        '--all',
        ...args,
      )
    ).events.map((e) => `${e.event} ${String(e.data.id ?? e.data.transferId)}`)

  it("events list --user: theirs, their wallets' and both legs of a transfer, with payloads as delivered", async () => {
    const mine = await events('--user', ada)
    expect(mine).toContain(`wallet.created ${eur}`)
    expect(mine).toContain(`transaction.failed ${ach}`)
    expect(mine).toContain(`transfer.completed ${transfer}`)
    const bobsEvents = await events('--user', bob)
    expect(bobsEvents).toContain(`transfer.completed ${transfer}`)
    expect(bobsEvents.filter((e) => e.startsWith('transaction.completed'))).toHaveLength(2)
    expect(bobsEvents.join()).not.toContain(card)
    expect(await events('--wallet', eur)).toEqual([`wallet.created ${eur}`])
    expect(await events('--transaction', ach)).toEqual([`transaction.failed ${ach}`])
  })

  it('--since and --until count back from the sandbox clock, and read a date as the reader’s day', async () => {
    // Two days ago by the sandbox clock, and the ACH returned an hour after it was sent.
    expect(await events('--user', ada, '--since', '24h')).toEqual([])
    expect(await events('--user', ada, '--until', '24h', '--type', 'transaction.failed')).toEqual([
      `transaction.failed ${ach}`,
    ])
    expect(
      await events('--user', ada, '--since', '3d', '--until', '47h', '--type', 'wallet.created'),
    ).toHaveLength(2)
    const txns = async (...args: string[]) =>
      (await json<{transactions: {id: string}[]}>('transactions', 'list', '--all', ...args)).transactions.map(
        (t) => t.id,
      )
    expect(await txns('--user', ada, '--since', '24h')).toEqual([])
    expect(await txns('--user', ada, '--until', '24h', '--type', 'deposit')).toEqual([ach, card])
    const day = (ms: number) => {
      const d = new Date(ms)
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
    }
    const [created] = (await json<{events: {timestamp: string}[]}>('events', 'list', '--wallet', eur)).events
    const then = Date.parse(created!.timestamp)
    // A date is that day where the reader is: from its midnight (--since), through its end (--until).
    expect(await events('--wallet', eur, '--since', day(then))).toEqual([`wallet.created ${eur}`])
    expect(await events('--wallet', eur, '--until', day(then))).toEqual([`wallet.created ${eur}`])
    expect(await events('--wallet', eur, '--since', day(then + 86_400_000))).toEqual([])
    expect(await events('--wallet', eur, '--until', day(then - 86_400_000))).toEqual([])
  })

  it('a time it cannot read is a usage error naming the flag, and an unknown user is said, not an empty list', async () => {
    for (const [flag, value] of [
      ['--since', 'yesterday'],
      ['--until', '2026-02-30'],
      ['--since', '2026-12-10T20:14'],
    ]) {
      const r = await cli('events', 'list', flag!, value!)
      expect(r.exitCode, `${flag} ${value}`).toBe(2)
      expect(r.stderr).toContain(flag!)
    }
    const r = await cli('events', 'list', '--user', 'usr_000000000000000000000000')
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/NOT_FOUND: No user usr_0{24}/)
  })
})

describe('reading what is found', () => {
  it('events get shows the data field by field, amounts in major units with their currency', async () => {
    const [failed] = (await json<{events: {id: string}[]}>('events', 'list', '--transaction', ach)).events
    const shown = await cli('events', 'get', failed!.id)
    expect(shown.stdout).toMatch(/amount\s+1,000\.00 USD/)
    expect(shown.stdout).toMatch(/failureReason\s+R01/)
    expect(shown.stdout).not.toContain('100000')
  })

  it('a failed transaction shows no net, a partly refunded one what was refunded', async () => {
    const failed = await cli('transactions', 'get', ach)
    expect(failed.stdout).not.toMatch(/^net\s/m)
    const refunded = await cli('transactions', 'get', card)
    expect(refunded.stdout).toMatch(/^refunded\s+10\.00 USD$/m)
    const list = await cli(
      'transactions',
      'list',
      '--wallet',
      usd,
      '--type',
      'deposit',
      '--columns',
      'id,net',
    )
    expect(list.stdout).toMatch(new RegExp(`${ach}\\s*$`, 'm'))
  })

  it('a BNPL payment shows its instalment in major units', async () => {
    await id('wallets', 'create', '--user', bob, '--currency', 'EUR', '--initial-balance', '500.00EUR')
    const payment = await id(
      'bnpl',
      'payments',
      'create',
      '--user',
      bob,
      '--amount',
      '240.00EUR',
      '--merchant',
      'Allbirds',
    )
    const shown = await cli('bnpl', 'payments', 'get', payment)
    expect(shown.stdout).toMatch(/instalment\s+60\.00 EUR/)
    expect(shown.stdout).not.toMatch(/installmentAmount/)
  })
})

describe.runIf(hasScript)('in an 80-column terminal', () => {
  /** No line past 80 columns, and no time, amount or event name cut with "…". */
  function expectFitted(lines: string[]): void {
    for (const line of lines) expect(line.trimEnd().length, line).toBeLessThanOrEqual(80)
    const text = lines.join('\n')
    expect(text).not.toMatch(/\d…|[A-Z]{2}…|\.[a-z]*…|T\d\d:…/)
  }

  it('transactions list --user shows when and the other side of each, under its row where it must', async () => {
    const lines = await inTerminal(80, 'transactions', 'list', '--user', ada)
    expectFitted(lines)
    const text = lines.join('\n')
    expect(lines.find((l) => l.startsWith('ID'))).toMatch(/CREATED/)
    expect(text).toMatch(/\d\d-\d\d \d\d:\d\d/)
    expect(text).toContain(bobs)
    for (const txn of [card, ach, transfer]) expect(text).toContain(txn)
    expect(text).toContain('1,000.00 USD')
  })

  it('events list keeps whole event names and times', async () => {
    const lines = await inTerminal(80, 'events', 'list', '--user', ada)
    expectFitted(lines)
    expect(lines.join('\n')).toContain('transaction.failed')
    expect(lines.join('\n')).toContain('transaction.completed')
  })

  it('wallets list --user drops the user column before any balance', async () => {
    const lines = await inTerminal(80, 'wallets', 'list', '--user', ada)
    expectFitted(lines)
    const header = lines.find((l) => l.startsWith('ID'))!
    expect(header).toMatch(/AVAILABLE/)
    expect(header).toMatch(/TOTAL/)
    expect(header).not.toMatch(/USER/)
  })

  it('audit list shows whole command lines and times', async () => {
    const lines = await inTerminal(80, 'audit', 'list', '--limit', '5')
    expectFitted(lines)
    const text = lines.join(' ').replace(/\s+/g, ' ')
    expect(text).toContain(`payctl transactions refund ${card} --amount 10.00USD`)
  })

  it('users balance suggests no flag it does not take', async () => {
    const lines = await inTerminal(80, 'users', 'balance', ada)
    expectFitted(lines)
    expect(lines.join('\n')).not.toContain('--wide')
  })
})
