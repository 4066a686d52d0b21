import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {start, type TestSandbox, tempDir} from './helpers.js'
import {createTx, data, expectLedgerBalanced, wallet} from './money-helpers.js'

/**
 * The read routes a support person's questions need (docs/sandbox.md#finding-users-and-their-story):
 * finding users, a user's or wallet's or transaction's events, and a wallet's ledger entries.
 */

const ids = (list: {id: string}[]) => list.map((x) => x.id)

describe('finding users: GET /v1/users', () => {
  let t: TestSandbox
  let ada: string
  let grace: string
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    ada = await t.user({
      email: 'Ada@Example.test',
      first_name: 'Ada',
      last_name: 'Lovelace',
      external_id: 'crm-1',
    })
    grace = await t.user({email: 'grace@example.test', first_name: 'Grace', last_name: 'Hopper'})
    await t.user({email: 'ada@example.test', first_name: 'Ada', last_name: 'Byron', external_id: 'crm_2%'})
  })
  afterAll(() => t.close())

  test('by email in any case, by external id exactly, by part of the name in any case', async () => {
    const byEmail = data(await t.get('/v1/users?email=ADA@example.TEST')).users
    expect(byEmail.map((u: {email: string}) => u.email)).toEqual(['Ada@Example.test', 'ada@example.test'])
    expect(ids(data(await t.get('/v1/users?external_id=crm-1')).users)).toEqual([ada])
    expect(ids(data(await t.get('/v1/users?name=ace%20hop')).users)).toEqual([grace])
    expect(data(await t.get('/v1/users?name=ada%20l')).users).toHaveLength(1)
    // LIKE's wildcards in what was typed are plain characters.
    expect(data(await t.get('/v1/users?name=%25')).users).toEqual([])
    expect(data(await t.get('/v1/users?external_id=crm_2%25')).users).toHaveLength(1)
  })

  test('every user, oldest first, in pages', async () => {
    const first = data(await t.get('/v1/users?limit=2'))
    expect(first.users).toHaveLength(2)
    expect(first.hasMore).toBe(true)
    const second = data(await t.get(`/v1/users?limit=2&cursor=${first.nextCursor}`))
    expect([...ids(first.users), ...ids(second.users)].slice(0, 2)).toEqual([ada, grace])
    expect(second).toMatchObject({hasMore: false, nextCursor: null})
  })

  test("another partner's users are not found", async () => {
    const files = tempDir()
    try {
      const a = await start({data: files.file, rateLimit: 'off', credentials: {partnerId: 'partner_a'}})
      await a.user({email: 'shared@example.test'})
      await a.close()
      const b = await start({data: files.file, rateLimit: 'off', credentials: {partnerId: 'partner_b'}})
      try {
        expect(data(await b.get('/v1/users?email=shared@example.test')).users).toEqual([])
        await b.user({email: 'shared@example.test'})
        expect(data(await b.get('/v1/users')).users).toHaveLength(1)
      } finally {
        await b.close()
      }
    } finally {
      files.cleanup()
    }
  })
})

describe("a user's story: events by user, wallet, transaction and time, and the ledger", () => {
  let t: TestSandbox
  const files = tempDir()
  let ada: string
  let usd: string
  let eur: string
  let bob: string
  let bobs: string
  let deposit: string
  let transfer: {id: string; pairedTransactionId: string}
  beforeAll(async () => {
    t = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 3600})
    ada = await t.user()
    usd = await wallet(t, 'USD', 0, ada)
    eur = await wallet(t, 'EUR', 0, ada)
    bob = await t.user({email: 'bob@example.test'})
    bobs = await wallet(t, 'USD', 0, bob)
    deposit = data(
      await createTx(t, {
        amount: 10_000,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: usd,
      }),
    ).id
    transfer = data(
      await createTx(t, {
        amount: 4_000,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: usd,
        destinationWalletId: bobs,
      }),
    )
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  const events = async (query: string) =>
    data(await t.get(`/v1/events?limit=100&${query}`)).events.map(
      (e: {event: string; data: Record<string, unknown>}) =>
        `${e.event} ${String(e.data.id ?? e.data.transferId)}`,
    )

  test("a user's events: theirs, their wallets', and every transaction touching their wallets", async () => {
    expect(await events(`userId=${ada}`)).toEqual([
      `transfer.completed ${transfer.id}`,
      `transaction.completed ${transfer.pairedTransactionId}`,
      `transaction.completed ${transfer.id}`,
      `transaction.completed ${deposit}`,
      `wallet.created ${eur}`,
      `wallet.created ${usd}`,
    ])
    // The payee sees both legs of the transfer, and nothing of Ada's card payment.
    expect(await events(`userId=${bob}`)).toEqual([
      `transfer.completed ${transfer.id}`,
      `transaction.completed ${transfer.pairedTransactionId}`,
      `transaction.completed ${transfer.id}`,
      `wallet.created ${bobs}`,
    ])
    expect(await events(`walletId=${eur}`)).toEqual([`wallet.created ${eur}`])
    expect(await events(`transactionId=${transfer.pairedTransactionId}&type=transaction.completed`)).toEqual([
      `transaction.completed ${transfer.pairedTransactionId}`,
      `transaction.completed ${transfer.id}`,
    ])
  })

  test('the webhook payloads stay as they were: a transaction event names no user or wallet', async () => {
    const [completed] = data(await t.get(`/v1/events?transactionId=${deposit}`)).events
    expect(Object.keys(completed.data).sort()).toEqual(['amount', 'completedAt', 'currency', 'id', 'status'])
  })

  test('since and until: an instant, a date, or a duration back from the sandbox clock', async () => {
    const all = await events(`userId=${ada}`)
    expect(await events(`userId=${ada}&since=1h`)).toEqual(all)
    expect(await events(`userId=${ada}&until=1h`)).toEqual([])
    expect(
      (await t.post('/_sandbox/clock/advance', {seconds: 2 * 86_400}, {auth: t.creds.secretKey})).status,
    ).toBe(200)
    // Two days later by the sandbox clock, what happened is more than a day old.
    expect(await events(`userId=${ada}&since=24h`)).toEqual([])
    expect(await events(`userId=${ada}&until=24h`)).toEqual(all)
    const later = data(
      await createTx(t, {
        amount: 500,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: usd,
        destinationWalletId: bobs,
      }),
    )
    expect(await events(`walletId=${usd}&since=24h&type=transfer.completed`)).toEqual([
      `transfer.completed ${later.id}`,
    ])
    const day = String((await t.get('/_sandbox/health', {auth: null})).body.clock.now).slice(0, 10)
    expect(await events(`walletId=${usd}&since=${day}&type=transfer.completed`)).toEqual([
      `transfer.completed ${later.id}`,
    ])
    const txns = data(await t.get(`/v1/transactions?userId=${ada}&since=24h`)).transactions
    expect(ids(txns)).toEqual([later.id])
    expect(
      ids(data(await t.get(`/v1/transactions?walletId=${usd}&until=24h&type=deposit`)).transactions),
    ).toEqual([deposit])
  })

  test('a time that is none, and an id that is not the caller’s, are refused, not answered with nothing', async () => {
    for (const bad of ['2026-02-30', 'yesterday', '24x', '2026-12-10T20:14']) {
      const res = await t.get(`/v1/events?since=${bad}`)
      expect(res.status, bad).toBe(400)
      expect(res.body.error).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'since'}})
    }
    for (const [query, resource] of [
      ['userId=usr_000000000000000000000000', 'user'],
      ['walletId=wal_000000000000000000000000', 'wallet'],
      ['transactionId=txn_000000000000000000000000', 'transaction'],
    ] as const) {
      const res = await t.get(`/v1/events?${query}`)
      expect(res.status, query).toBe(404)
      expect(res.body.error).toMatchObject({code: 'NOT_FOUND', details: {resource}})
    }
    expect((await t.get('/v1/transactions?userId=usr_000000000000000000000000')).status).toBe(404)
  })

  test("a wallet's ledger entries, newest first, each with the balance it left", async () => {
    const {entries, hasMore} = data(await t.get(`/v1/wallets/${usd}/ledger-entries`))
    expect(hasMore).toBe(false)
    const wallet = data(await t.get(`/v1/wallets/${usd}`))
    expect(entries[0].balanceAfter).toEqual(wallet.balance)
    expect(entries.map((e: {transactionId: string; amount: number}) => [e.transactionId, e.amount])).toEqual([
      [expect.any(String), -500],
      [transfer.id, -4_000],
      [deposit, 9_680],
    ])
    // Each line's balance is the one before it moved by its amount.
    for (const [i, e] of entries.entries()) {
      const before = entries[i + 1]?.balanceAfter.available ?? 0
      expect(e.balanceAfter.available).toBe(before + e.amount)
      expect(e).toMatchObject({bucket: 'available', currency: 'USD', createdAt: expect.any(String)})
    }
    const page = data(await t.get(`/v1/wallets/${usd}/ledger-entries?limit=2`))
    const rest = data(await t.get(`/v1/wallets/${usd}/ledger-entries?limit=2&cursor=${page.nextCursor}`))
    expect([...page.entries, ...rest.entries]).toEqual(entries)
    expect((await t.get('/v1/wallets/wal_000000000000000000000000/ledger-entries')).status).toBe(404)
    expectLedgerBalanced(files.file)
  })

  test('a payment that settles later moves pending first, then available, each line with the whole balance', async () => {
    await createTx(t, {
      amount: 10_000,
      currency: 'USD',
      method: 'ach',
      paymentMethodId: 'pm_ach_success',
      destinationWalletId: bobs,
    })
    const [processing] = data(await t.get(`/v1/wallets/${bobs}/ledger-entries?limit=1`)).entries
    expect(processing).toMatchObject({bucket: 'pending', balanceAfter: {pending: processing.amount}})
    await t.post('/_sandbox/clock/advance', {seconds: 7200}, {auth: t.creds.secretKey})
    const settled = data(await t.get(`/v1/wallets/${bobs}/ledger-entries?limit=2`)).entries
    expect(settled.map((e: {bucket: string}) => e.bucket).sort()).toEqual(['available', 'pending'])
    expect(settled[0].balanceAfter).toEqual(data(await t.get(`/v1/wallets/${bobs}`)).balance)
    expectLedgerBalanced(files.file)
  })
})
