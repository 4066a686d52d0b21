import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, type CliResult, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

let sandbox: LocalSandbox
let cli: Cli
const json = async <T = Record<string, unknown>>(...args: string[]): Promise<T> => {
  const r = await cli(...args, '--json')
  expect(r.exitCode, r.stdout + r.stderr).toBe(0)
  return r.json<T>()
}
const errorOf = (r: CliResult) =>
  r.json<{error: {code: string; status?: number; details?: Record<string, unknown>}}>().error

async function newUser(name: string): Promise<string> {
  return (
    await json<{id: string}>(
      'users',
      'create',
      '--email',
      `${name}@example.test`,
      '--first-name',
      name,
      '--last-name',
      'Test',
    )
  ).id
}
async function newWallet(user: string, currency: string, initial?: string): Promise<string> {
  const args = ['wallets', 'create', '--user', user, '--currency', currency]
  if (initial) args.push('--initial-balance', initial)
  return (await json<{id: string}>(...args)).id
}
const balanceOf = async (wallet: string) =>
  (
    await json<{balance: {available: number; pending: number; reserved: number; total: number}}>(
      'wallets',
      'get',
      wallet,
    )
  ).balance

/**
 * Once `wallet` has `count` payments in processing, settle them: move the sandbox's clock past
 * their settlement, as the processor's report "1-3 days" later would. Until then a payment stays in
 * processing however slow the machine (the sandbox settles them an hour after they are made).
 */
async function settleWhenProcessing(wallet: string, count = 1): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const {transactions} = await json<{transactions: {status: string}[]}>(
      'transactions',
      'list',
      '--wallet',
      wallet,
    )
    if (transactions.filter((t) => t.status === 'processing').length >= count) break
    if (Date.now() > deadline)
      throw new Error(`no ${count} payments in processing: ${JSON.stringify(transactions)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
  const advanced = await cli('sandbox', 'advance', '1h')
  expect(advanced.exitCode, advanced.stderr).toBe(0)
}

beforeAll(async () => {
  sandbox = await startLocalSandbox({settleAfterSeconds: 3600})
  cli = cliFor(sandbox)
})
afterAll(async () => {
  await sandbox.stop()
})

describe('transactions create', () => {
  it('deposits by card at once: completed, with fee and net, and the wallet credited the net', async () => {
    const wallet = await newWallet(await newUser('card'), 'USD')
    const tx = await json<Record<string, unknown>>(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '100.00USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_card_visa',
      '--metadata',
      'order=42',
      '--metadata',
      'note=a=b',
    )
    expect(tx).toMatchObject({
      type: 'deposit',
      status: 'completed',
      amount: 10000,
      currency: 'USD',
      destinationWalletId: wallet,
      metadata: {order: '42', note: 'a=b'},
    })
    expect(tx.completedAt).toBeTruthy()
    expect(tx.netAmount).toBe((tx.amount as number) - (tx.fee as number))
    expect(tx.fee as number).toBeGreaterThan(0)
    expect((await balanceOf(wallet)).available).toBe(tx.netAmount)
    const human = await cli('transactions', 'get', tx.id as string)
    expect(human.stdout).toMatch(/amount\s+100\.00 USD/)
    expect(human.stdout).toContain('completed')
  })

  it('follows an ACH deposit with --wait until it completes', async () => {
    const wallet = await newWallet(await newUser('ach'), 'USD')
    const r = await cli(
      'transactions',
      'create',
      '--method',
      'ach',
      '--amount',
      '5000',
      '--currency',
      'USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_ach_success',
      '--json',
    )
    const first = r.json<{id: string; status: string; completedAt: null; estimatedCompletion: string}>()
    expect(first.status).toBe('processing')
    expect(first.completedAt).toBeNull()
    expect(first.estimatedCompletion).toBeTruthy()
    expect((await balanceOf(wallet)).pending).toBeGreaterThan(0)
    const [waited] = await Promise.all([
      json<{id: string; status: string}>(
        'transactions',
        'create',
        '--method',
        'ach',
        '--amount',
        '5000',
        '--currency',
        'USD',
        '--to',
        wallet,
        '--payment-method',
        'pm_ach_success',
        '--wait',
        '--timeout',
        '30s',
      ),
      settleWhenProcessing(wallet, 2),
    ])
    expect(waited.status).toBe('completed')
    const settled = await json<{status: string}>('transactions', 'get', first.id)
    expect(settled.status).toBe('completed')
  })

  it('reports a returned ACH as failed, with its reason, and exits 1 under --wait', async () => {
    const wallet = await newWallet(await newUser('returned'), 'USD')
    const [r] = await Promise.all([
      cli(
        'transactions',
        'create',
        '--method',
        'ach',
        '--amount',
        '5000',
        '--currency',
        'USD',
        '--to',
        wallet,
        '--payment-method',
        'pm_ach_returned',
        '--wait',
        '--timeout',
        '30s',
      ),
      settleWhenProcessing(wallet),
    ])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('TRANSACTION_FAILED')
    const id = r.stdout.trim()
    const tx = await json<{status: string; failureReason: string}>('transactions', 'get', id)
    expect(tx.status).toBe('failed')
    expect(tx.failureReason).toBeTruthy()
    expect(await balanceOf(wallet)).toMatchObject({available: 0, pending: 0, total: 0})
  })

  it('transfers between wallets, and refuses an overdraft with INSUFFICIENT_FUNDS and its details', async () => {
    const user = await newUser('transfer')
    const a = await newWallet(user, 'GBP', '50.00GBP')
    const b = await newWallet(await newUser('payee'), 'GBP')
    const tx = await json<{type: string; status: string}>(
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '20.00',
      '--decimal',
      '--currency',
      'GBP',
      '--from',
      a,
      '--to',
      b,
    )
    expect(tx).toMatchObject({type: 'transfer_out', status: 'completed'})
    expect((await balanceOf(a)).available).toBe(3000)
    expect((await balanceOf(b)).available).toBe(2000)
    const over = await cli(
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '31.00GBP',
      '--from',
      a,
      '--to',
      b,
      '--json',
    )
    expect(over.exitCode).toBe(1)
    expect(errorOf(over)).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      status: 402,
      details: {required: 3100, available: 3000, currency: 'GBP', walletId: a},
    })
  })

  it('turns a declined card into CARD_DECLINED (402)', async () => {
    const wallet = await newWallet(await newUser('declined'), 'USD')
    const r = await cli(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '10.00USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_card_declined',
      '--json',
    )
    expect(r.exitCode).toBe(1)
    expect(errorOf(r)).toMatchObject({code: 'CARD_DECLINED', status: 402})
  })

  it('names the missing flag of each method before sending anything', async () => {
    const cases: [string[], string][] = [
      [['--method', 'card', '--amount', '1000', '--currency', 'USD', '--to', 'wal_x'], '--payment-method'],
      [['--method', 'ach', '--amount', '1000', '--currency', 'USD', '--to', 'wal_x'], '--payment-method'],
      [['--method', 'wallet', '--amount', '1000', '--currency', 'USD', '--to', 'wal_x'], '--from'],
      [['--method', 'wire', '--amount', '1000', '--currency', 'USD'], '--to'],
      [
        ['--method', 'card', '--currency', 'USD', '--to', 'wal_x', '--payment-method', 'pm_card_visa'],
        '--amount',
      ],
    ]
    for (const [args, flag] of cases) {
      const r = await cli('transactions', 'create', ...args)
      expect(r.exitCode, args.join(' ')).toBe(2)
      expect(r.stderr).toContain(flag)
    }
  })

  it('refuses an amount it cannot convert exactly', async () => {
    for (const amount of ['12.34', '1.005USD', '1.5JPY', 'ten']) {
      const r = await cli(
        'transactions',
        'create',
        '--method',
        'card',
        '--amount',
        amount,
        '--currency',
        amount.endsWith('JPY') ? 'JPY' : 'USD',
        '--to',
        'wal_x',
        '--payment-method',
        'pm_card_visa',
      )
      expect(r.exitCode, amount).toBe(2)
      expect(r.stderr).toContain('INVALID_AMOUNT')
    }
  })

  it('enforces the 0.50 USD minimum in other currencies, and ACH only in USD', async () => {
    const user = await newUser('rules')
    const eur = await newWallet(user, 'EUR')
    const small = await cli(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '0.10EUR',
      '--to',
      eur,
      '--payment-method',
      'pm_card_visa',
      '--json',
    )
    expect(errorOf(small).code).toBe('AMOUNT_TOO_SMALL')
    const ach = await cli(
      'transactions',
      'create',
      '--method',
      'ach',
      '--amount',
      '10.00EUR',
      '--to',
      eur,
      '--payment-method',
      'pm_ach_success',
      '--json',
    )
    expect(errorOf(ach)).toMatchObject({
      code: 'INVALID_PAYMENT_METHOD',
      details: {supported: ['card', 'wire', 'wallet', 'crypto']},
    })
  })

  it('replays the first answer for a reused idempotency key and refuses the key for another request', async () => {
    const wallet = await newWallet(await newUser('idem'), 'USD')
    const args = [
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '10.00USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_card_visa',
      '--idempotency-key',
      'order-7',
    ]
    const first = await json<{id: string}>(...args)
    const again = await json<{id: string}>(...args)
    expect(again.id).toBe(first.id)
    const list = await json<{transactions: unknown[]}>('transactions', 'list', '--wallet', wallet)
    expect(list.transactions).toHaveLength(1)
    const other = await cli(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '11.00USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_card_visa',
      '--idempotency-key',
      'order-7',
      '--json',
    )
    expect(errorOf(other)).toMatchObject({code: 'DUPLICATE_TRANSACTION', status: 409})
  })

  it('keeps amounts beyond 2^53 exact end to end', async () => {
    const wallet = await newWallet(await newUser('eth'), 'ETH', '1.234567890123456789ETH')
    const r = await cli('wallets', 'get', wallet, '--json')
    expect(r.stdout).toContain('"available": 1234567890123456789')
    const human = await cli('wallets', 'get', wallet)
    expect(human.stdout).toContain('1.234567890123456789 ETH')
  })

  // About thirty commands: generous under a loaded machine.
  it('prints amounts beyond 2^53 exactly on every output path: cards, tables, csv, yaml, ndjson, json and errors', {
    timeout: 120_000,
  }, async () => {
    const user = await newUser('exact')
    const wallet = await newWallet(user, 'ETH', '12.234567890123456789ETH')
    const empty = await newWallet(await newUser('exact-empty'), 'ETH')
    const deposit = (await json<{transactions: {id: string}[]}>('transactions', 'list', '--wallet', wallet))
      .transactions[0]!.id
    const events = await json<{events: {id: string; event: string}[]}>('events', 'list')
    const event = events.events.find(
      (e) => e.event === 'transaction.completed' && JSON.stringify(e).includes(deposit),
    )
    expect(event).toBeDefined()
    const digits = '12234567890123456789'
    const decimal = '12.234567890123456789'
    const lists = [
      ['wallets', 'list', '--user', user],
      ['transactions', 'list', '--wallet', wallet],
      ['events', 'list'],
    ]
    const runs: [string[], string][] = [
      [['wallets', 'get', wallet], decimal],
      [['wallets', 'get', wallet, '--json'], digits],
      [['wallets', 'balance', wallet], decimal],
      [['wallets', 'balance', wallet, '--json'], digits],
      [['users', 'balance', user], decimal],
      [['users', 'balance', user, '--json'], digits],
      [['transactions', 'get', deposit], decimal],
      [['transactions', 'get', deposit, '--json'], digits],
      // An event's data is read as a person reads it: the amount in ETH, every digit kept.
      [['events', 'get', event!.id], decimal],
      [['events', 'get', event!.id, '--json'], digits],
    ]
    for (const list of lists) {
      // Events show no amount in a table or csv: only that they print at all is checked there.
      const shown = list[0] === 'events' ? '' : decimal
      runs.push([list, shown], [[...list, '--output', 'csv'], shown], [[...list, '--json'], digits])
      for (const format of ['yaml', 'ndjson', 'json']) runs.push([[...list, '--output', format], digits])
    }
    for (const [args, expected] of runs) {
      const r = await cli(...args)
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(r.stdout, args.join(' ')).toContain(expected)
    }
    // An error whose details hold such an amount: INSUFFICIENT_FUNDS names what was required.
    for (const extra of [[], ['--json']]) {
      const r = await cli(
        'transactions',
        'create',
        '--method',
        'wallet',
        '--amount',
        '1.000000000000000001ETH',
        '--from',
        empty,
        '--to',
        wallet,
        ...extra,
      )
      expect(r.exitCode, r.stderr).toBe(1)
      expect(r.stdout + r.stderr).toContain('1000000000000000001')
      expect(r.stdout + r.stderr).not.toMatch(/serialize a BigInt|UNEXPECTED/)
    }
  })
})

describe('refunds, lists and wallet updates', () => {
  it('refunds part of a card deposit, then the rest', async () => {
    const wallet = await newWallet(await newUser('refund'), 'USD')
    const tx = await json<{id: string; netAmount: number}>(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '50.00USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_card_visa',
    )
    const part = await json<{type: string; amount: number}>(
      'transactions',
      'refund',
      tx.id,
      '--amount',
      '10.00USD',
      '--reason',
      'damaged',
    )
    expect(part).toMatchObject({type: 'refund', amount: 1000})
    await json('transactions', 'refund', tx.id)
    expect((await json<{status: string}>('transactions', 'get', tx.id)).status).toBe('refunded')
    const again = await cli('transactions', 'refund', tx.id, '--json')
    expect(errorOf(again).code).toBe('TRANSACTION_NOT_REFUNDABLE')
  })

  it('lists a wallet’s transactions newest first, filtered and paginated', async () => {
    const wallet = await newWallet(await newUser('lister'), 'USD')
    for (const amount of ['1.00USD', '2.00USD', '3.00USD']) {
      await json(
        'transactions',
        'create',
        '--method',
        'card',
        '--amount',
        amount,
        '--to',
        wallet,
        '--payment-method',
        'pm_card_visa',
      )
    }
    const page1 = await json<{transactions: {amount: number}[]; hasMore: boolean; nextCursor: string}>(
      'transactions',
      'list',
      '--wallet',
      wallet,
      '--limit',
      '2',
    )
    expect(page1.transactions.map((t) => t.amount)).toEqual([300, 200])
    expect(page1.hasMore).toBe(true)
    const page2 = await json<{transactions: {amount: number}[]; hasMore: boolean}>(
      'transactions',
      'list',
      '--wallet',
      wallet,
      '--limit',
      '2',
      '--cursor',
      page1.nextCursor,
    )
    expect(page2.transactions.map((t) => t.amount)).toEqual([100])
    expect(page2.hasMore).toBe(false)
    const table = await cli('transactions', 'list', '--wallet', wallet)
    expect(table.stdout).toContain('3.00 USD')
  })

  it('freezes a wallet, after which it can no longer pay', async () => {
    const user = await newUser('frozen')
    const a = await newWallet(user, 'USD', '10.00USD')
    const b = await newWallet(await newUser('frozen2'), 'USD')
    expect((await json<{status: string}>('wallets', 'update', a, '--status', 'frozen')).status).toBe('frozen')
    const r = await cli(
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '1.00USD',
      '--from',
      a,
      '--to',
      b,
      '--json',
    )
    expect(errorOf(r).code).toBe('WALLET_NOT_ACTIVE')
    const balance = await json<{available: number; total: number}>('wallets', 'balance', a)
    expect(balance).toMatchObject({available: 1000, total: 1000})
  })
})

describe('accounts, payment methods and the wallet product', () => {
  it('connects a bank account and deposits from it by ACH', async () => {
    const user = await newUser('bank')
    const wallet = await newWallet(user, 'USD')
    const link = await json<{linkToken: string; link_token: string}>('accounts', 'connect', user)
    expect(link.linkToken).toBe(link.link_token)
    const account = await json<{paymentMethodId: string}>(
      'accounts',
      'link',
      user,
      '--link-token',
      link.linkToken,
    )
    const [tx] = await Promise.all([
      json<{status: string}>(
        'transactions',
        'create',
        '--method',
        'ach',
        '--amount',
        '20.00USD',
        '--to',
        wallet,
        '--payment-method',
        account.paymentMethodId,
        '--wait',
      ),
      settleWhenProcessing(wallet),
    ])
    expect(tx.status).toBe('completed')
    const accounts = await json<{accounts: unknown[]}>('accounts', 'list', user)
    expect(accounts.accounts).toHaveLength(1)
  })

  it('saves a card from a test token and lists it masked', async () => {
    const user = await newUser('pm')
    const pm = await json<{id: string; last4: string}>(
      'payment-methods',
      'add',
      '--user',
      user,
      '--type',
      'card',
      '--token',
      'tok_visa',
    )
    const list = await cli('payment-methods', 'list', '--user', user)
    expect(list.stdout).toContain(pm.id)
    expect(list.stdout).toContain(`•••• ${pm.last4}`)
  })

  it('removes a saved payment method: its id when piped, the answer under --json, 404 the second time', async () => {
    const user = await newUser('rm')
    const add = (token: string) =>
      json<{id: string}>('payment-methods', 'add', '--user', user, '--type', 'card', '--token', token)
    const [first, second] = [await add('tok_visa'), await add('tok_visa')]
    const piped = await cli('payment-methods', 'remove', first.id, '--user', user)
    expect(piped.exitCode, piped.stderr).toBe(0)
    expect(piped.stdout).toBe(`${first.id}\n`)
    expect(await json('payment-methods', 'remove', second.id, '--user', user)).toEqual({
      id: second.id,
      deleted: true,
    })
    const list = await json<{paymentMethods: unknown[]}>('payment-methods', 'list', '--user', user)
    expect(list.paymentMethods).toEqual([])

    const again = await cli('payment-methods', 'remove', first.id, '--user', user, '--json')
    expect(again.exitCode).toBe(1)
    expect(errorOf(again)).toMatchObject({code: 'NOT_FOUND', status: 404})
    const noUser = await cli('payment-methods', 'remove', first.id)
    expect(noUser.exitCode).toBe(2)
    expect(noUser.stderr).toContain('MISSING_FLAG: missing required flag --user')
  })

  it('checks eligibility, pays from the wallet, issues a card and sends money to a friend', async () => {
    const alice = await newUser('alice')
    const bob = await newUser('bob')
    const aw = await newWallet(alice, 'USD', '100.00USD')
    await newWallet(bob, 'USD')
    const ok = await json<{eligible: boolean}>(
      'payments',
      'eligibility',
      '--user',
      alice,
      '--amount',
      '20.00USD',
    )
    expect(ok.eligible).toBe(true)
    const no = await json<{eligible: boolean; reasons: string[]}>(
      'payments',
      'eligibility',
      '--user',
      alice,
      '--amount',
      '200.00USD',
    )
    expect(no).toMatchObject({eligible: false, reasons: ['INSUFFICIENT_FUNDS']})
    const pay = await json<{status: string; walletId: string}>(
      'payments',
      'create',
      '--user',
      alice,
      '--amount',
      '20.00USD',
      '--merchant',
      'Shop',
    )
    expect(pay).toMatchObject({status: 'completed', walletId: aw})
    const card = await cli('cards', 'create', alice, '--json')
    const c = card.json<{number: string; last4: string}>()
    expect(c.number).toMatch(/^\d{16}$/)
    expect(luhn(c.number)).toBe(true)
    const sent = await json<{status: string}>(
      'p2p',
      'send',
      '--from',
      alice,
      '--to',
      bob,
      '--amount',
      '30.00USD',
      '--note',
      'lunch',
    )
    expect(sent.status).toBe('completed')
    const balances = await json<{balances: {currency: string; available: number}[]}>(
      'users',
      'balance',
      alice,
    )
    expect(balances.balances).toEqual([expect.objectContaining({currency: 'USD', available: 5000})])
    const human = await cli('users', 'balance', bob)
    expect(human.stdout).toContain('30.00 USD')
  })
})

function luhn(number: string): boolean {
  let sum = 0
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i])
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2
    sum += d
  }
  return sum % 10 === 0
}

describe('amounts in what a person reads', () => {
  it('never prints the smallest unit beside a currency code: a minimum, a refund left, funds', async () => {
    const wallet = await newWallet(await newUser('wording'), 'USD', '1.00USD')
    const small = await cli(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '10',
      '--currency',
      'USD',
      '--payment-method',
      'pm_card_visa',
      '--to',
      wallet,
    )
    expect(small.exitCode).toBe(1)
    expect(small.stderr).toContain('Amount is below the minimum of 0.50 USD (0.50 USD at the sandbox rate)')
    expect(small.stderr).toContain('minimum: 0.50 USD (50 in the smallest unit)')
    expect(small.stderr).not.toMatch(/(?<![\d.])50 USD/)

    const other = await newWallet(await newUser('wording2'), 'USD')
    const poor = await cli(
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '5.00USD',
      '--from',
      wallet,
      '--to',
      other,
    )
    expect(poor.exitCode).toBe(1)
    expect(poor.stderr).toContain('required: 5.00 USD (500 in the smallest unit)')
    expect(poor.stderr).toContain('available: 1.00 USD (100 in the smallest unit)')

    const tx = await json<{id: string}>(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '1.00USD',
      '--payment-method',
      'pm_card_visa',
      '--to',
      other,
    )
    const refund = await cli('transactions', 'refund', tx.id, '--amount', '2.00USD')
    expect(refund.exitCode).toBe(1)
    expect(refund.stderr).toContain('At most 1.00 USD is left to refund')
  })
})
