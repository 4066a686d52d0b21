import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ProfileStore, saveLocalProfile} from '../../src/core/index.js'
import {cliFor, tempConfigDir} from '../helpers/cli.js'
import {customerRecords} from '../helpers/customer-records.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * A support person with a ticket about a user: finding the user by email, following their events
 * and transactions in time, and reading what is found (docs/support.md). How it fits
 * an 80-column terminal: test/processes/customer-tables-80-columns.test.ts.
 */

let sandbox: LocalSandbox
const cli = (...args: string[]) => cliFor(sandbox, {timeoutMs: 60_000})(...args)
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

let ada: string
let usd: string
let eur: string
let bob: string
let card: string
let ach: string
let transfer: string
beforeAll(async () => {
  sandbox = await startLocalSandbox({settleAfterSeconds: 3600})
  ;({ada, usd, eur, bob, card, ach, transfer} = await customerRecords(cli))
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

describe('a part of an email or a name: users list --search', () => {
  const ids = async (...args: string[]) =>
    (await json<{users: {id: string}[]}>('users', 'list', '--all', ...args)).users.map((u) => u.id)

  it('finds a part of an email or of a name, in any case, and nothing else', async () => {
    expect(await ids('--search', 'LOVE')).toEqual([ada])
    expect(await ids('--search', 'ada@EXAMPLE')).toEqual([ada])
    expect(await ids('--search', 'hopper')).toHaveLength(1)
    expect(await ids('--search', 'grace@')).toEqual(await ids('--search', 'hopper'))
    expect(await ids('--search', 'example.test')).toEqual(await ids())
    // A LIKE wildcard is a character like any other.
    expect(await ids('--search', '%')).toEqual([])
    const table = await cli('users', 'list', '--search', 'lovelace')
    expect(table.stdout).toMatch(new RegExp(`${ada}\\s+Ada@Example.test\\s+Ada Lovelace`))
    expect((await cli('users', 'list', '--search', 'jane')).stdout).toMatch(/^No users\./)
  })

  /** A service in front of the sandbox whose GET /v1/users refuses `search`, or ignores it. */
  async function withoutSearch(
    mode: 'refuses' | 'ignores',
    run: (cli: ReturnType<typeof cliFor>) => Promise<void>,
  ) {
    const proxy: Server = createServer(async (req, res) => {
      const url = new URL(req.url ?? '/', sandbox.url)
      const chunks: Buffer[] = []
      for await (const c of req) chunks.push(c as Buffer)
      if (url.pathname === '/v1/users' && req.method === 'GET' && url.searchParams.has('search')) {
        if (mode === 'refuses') {
          res.writeHead(400, {'content-type': 'application/json'})
          const error = {code: 'VALIDATION_ERROR', message: 'Invalid query: search: Unknown field'}
          res.end(JSON.stringify({success: false, error: {...error, details: {field: 'search'}}}))
          return
        }
        url.searchParams.delete('search')
      }
      const headers: Record<string, string> = {}
      for (const name of ['authorization', 'content-type', 'idempotency-key'])
        if (typeof req.headers[name] === 'string') headers[name] = req.headers[name]
      const answer = await fetch(url, {
        method: req.method,
        headers,
        ...(chunks.length > 0 ? {body: Buffer.concat(chunks)} : {}),
      })
      res.writeHead(answer.status, {'content-type': answer.headers.get('content-type') ?? 'application/json'})
      res.end(Buffer.from(await answer.arrayBuffer()))
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
    const temp = tempConfigDir()
    try {
      const {apiKey, apiSecret, partnerId} = sandbox.credentials
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
      await saveLocalProfile(new ProfileStore(temp.dir), 'local', url, {
        variant: 'A',
        apiKey,
        apiSecret,
        partnerId,
      })
      await run(cliFor(temp.dir, {timeoutMs: 60_000}))
    } finally {
      proxy.close()
      temp.cleanup()
    }
  }

  it.each(['refuses', 'ignores'] as const)(
    'against a service that lists users but %s the search, finds the same users from its pages',
    async (mode) => {
      // Grace is the second user: on the second page of one, after Ada.
      const expected = await ids('--search', 'HOPPER')
      expect(expected).toHaveLength(1)
      await withoutSearch(mode, async (other) => {
        const r = await other('users', 'list', '--search', 'HOPPER', '--limit', '1', '--json')
        expect(r.exitCode, r.stderr).toBe(0)
        expect(r.json<{users: {id: string}[]}>().users.map((u) => u.id)).toEqual(expected)
        const table = await other('users', 'list', '--search', 'lovelace')
        expect(table.stdout).toContain(ada)
        expect(table.stderr).toMatch(/does not search users: payctl reads its pages and keeps the matches/)
      })
    },
  )
})

describe('a ticket that names the customer by email', () => {
  it('users inspect, get and balance take the email of one user, in any case', async () => {
    const inspected = await cli('users', 'inspect', 'ada@example.test')
    expect(inspected.exitCode, inspected.stderr).toBe(0)
    expect(inspected.stdout).toMatch(new RegExp(`^id\\s+${ada}$`, 'm'))
    expect(inspected.stdout).toContain(usd)
    expect((await json<{user: {id: string}}>('users', 'inspect', 'ADA@example.TEST')).user.id).toBe(ada)
    expect((await json<{id: string}>('users', 'get', 'ada@example.test')).id).toBe(ada)
    const balance = await cli('users', 'balance', 'Ada@Example.test')
    expect(balance.exitCode, balance.stderr).toBe(0)
    expect(balance.stdout).toContain('USD')
  })

  it("the lists of a user's records take the email too", async () => {
    const wallets = await json<{wallets: {id: string}[]}>('wallets', 'list', '--user', 'ada@example.test')
    expect(wallets.wallets.map((w) => w.id).sort()).toEqual([usd, eur].sort())
    const txns = await json<{transactions: {id: string}[]}>(
      'transactions',
      'list',
      '--user',
      'ada@example.test',
    )
    expect(txns.transactions.map((t) => t.id)).toContain(card)
    const events = await json<{events: {id: string}[]}>('events', 'list', '--user', 'ada@example.test')
    expect(events.events.length).toBeGreaterThan(0)
  })

  it('an email of no user, or of several, is an error that says which command finds them', async () => {
    const none = await cli('users', 'inspect', 'jane@example.test')
    expect(none.exitCode).toBe(1)
    expect(none.stderr).toContain('NOT_FOUND: No user with the email jane@example.test')
    expect(none.stderr).toContain('payctl users list --search jane')
    const unknownId = await cli('users', 'get', 'usr_000000000000000000000000')
    expect(unknownId.exitCode).toBe(1)
    expect(unknownId.stderr).toContain('payctl users list --search')
    await id('users', 'create', '--email', 'BOB@example.test', '--first-name', 'Bobby', '--last-name', 'B')
    const two = await cli('users', 'get', 'bob@example.test')
    expect(two.exitCode).toBe(2)
    expect(two.stderr).toContain('AMBIGUOUS_USER: More than one user has the email bob@example.test')
    expect(two.stderr).toContain('payctl users list --email bob@example.test')
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

  it('tables in a pipe keep every column, as before', async () => {
    const r = await cli('transactions', 'list')
    expect(r.exitCode).toBe(0)
    const header = r.stdout.split('\n')[0]!
    for (const column of ['ID', 'TYPE', 'STATUS', 'AMOUNT', 'NET', 'FROM', 'TO', 'CREATED'])
      expect(header).toContain(column)
    expect(r.stderr).not.toContain('--wide')
  })
})

describe('the support person’s answers', () => {
  // A sandbox of their own: one test moves its clock six weeks on.
  let own: LocalSandbox
  const mine = (...args: string[]) => cliFor(own, {timeoutMs: 60_000})(...args)
  const made = async (...args: string[]) => {
    const r = await mine(...args)
    expect(r.exitCode, r.stderr).toBe(0)
    return r.stdout.trim()
  }
  let wallet: string
  beforeAll(async () => {
    own = await startLocalSandbox()
    const user = await made(
      'users',
      'create',
      '--email',
      'sam@example.test',
      '--first-name',
      'Sam',
      '--last-name',
      'S',
    )
    wallet = await made(
      'wallets',
      'create',
      '--user',
      user,
      '--currency',
      'USD',
      '--initial-balance',
      '100.00USD',
    )
  })
  afterAll(async () => {
    await own.stop()
  })

  it('a failed ACH deposit shows no fee line', async () => {
    const txn = await made(
      'transactions',
      'create',
      '--method',
      'ach',
      '--amount',
      '10000',
      '--currency',
      'USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_ach_returned',
    )
    expect((await mine('sandbox', 'advance', '3d')).exitCode).toBe(0)
    const shown = await mine('transactions', 'get', txn)
    expect(shown.stdout).toMatch(/status\s+failed/)
    expect(shown.stdout).toContain('failure reason')
    expect(shown.stdout).not.toMatch(/^fee\s/m)
  })

  it('users are dated by the sandbox clock, like wallets', async () => {
    expect((await mine('sandbox', 'advance', '42d')).exitCode).toBe(0)
    const later = await made(
      'users',
      'create',
      '--email',
      'late@example.test',
      '--first-name',
      'L',
      '--last-name',
      'L',
    )
    const other = await made('wallets', 'create', '--user', later, '--currency', 'EUR')
    const u = (await mine('users', 'get', later, '--json')).json<{createdAt?: string; created_at?: string}>()
    const w = (await mine('wallets', 'get', other, '--json')).json<{createdAt: string}>()
    const userCreated = Date.parse(u.createdAt ?? u.created_at ?? '')
    // A user is never younger than its wallet, and both are six weeks ahead of the wall clock.
    expect(userCreated).toBeLessThanOrEqual(Date.parse(w.createdAt))
    expect(Date.parse(w.createdAt) - userCreated).toBeLessThan(60_000)
    expect(userCreated - Date.now()).toBeGreaterThan(41 * 86_400_000)
  })
})
