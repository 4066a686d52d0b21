import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {EVENT_NAMES} from '../../src/contract/events/envelope.js'
import {settableNames, TRIGGER_OVERRIDES} from '../../src/contract/trigger-overrides.js'
import {query, start, type TestSandbox, tempDir} from './helpers.js'
import {ledgerProblems} from './money-helpers.js'

/** Triggers with overrides: the event is about real, consistent records (docs/webhooks.md). */
describe('webhooks trigger with overrides', () => {
  let sb: TestSandbox
  const files = tempDir()
  const trigger = (body: Record<string, unknown>) => sb.post('/_sandbox/trigger', body)
  const count = (table: string) => Number(query(files.file, `SELECT COUNT(*) AS n FROM ${table}`)[0]!.n)
  const wallet = async (userId: string, currency = 'USD', initialBalance = 0) => {
    const res = await sb.post('/v1/wallets', {userId, currency, initialBalance})
    expect(res.status, res.text).toBe(201)
    return res.body.data as {id: string; balance: {available: number}}
  }
  const balance = async (id: string) =>
    (await sb.get(`/v1/wallets/${id}`)).body.data.balance.available as number

  beforeAll(async () => {
    sb = await start({data: files.file, rateLimit: 'off', webhookRetries: 'fast'})
  })
  afterAll(async () => {
    await sb.close()
    files.cleanup()
  })

  it('makes transaction.failed about the named user and wallet, with the amount and metadata set', async () => {
    const user = await sb.user()
    const w = await wallet(user)
    const res = await trigger({
      event: 'transaction.failed',
      user,
      wallet: w.id,
      set: {amount: 5000, 'metadata.order': '42'},
    })
    expect(res.status, res.text).toBe(201)
    const {event, objects, synthesized} = res.body
    expect(synthesized).toBe(false)
    expect(event).toMatchObject({
      event: 'transaction.failed',
      data: {amount: 5000, currency: 'USD', status: 'failed', metadata: {order: '42'}},
    })
    expect(objects).toMatchObject({user, wallet: w.id, transaction: event.data.id})
    const txn = await sb.get(`/v1/transactions/${event.data.id}`)
    expect(txn.status, txn.text).toBe(200)
    expect(txn.body.data).toMatchObject({
      amount: 5000,
      status: 'failed',
      destinationWalletId: w.id,
      metadata: {order: '42'},
    })
    // A declined card moves nothing, and the ledger agrees with every balance.
    expect(await balance(w.id)).toBe(0)
    expect(ledgerProblems(files.file)).toEqual([])
  })

  it('moves the amount set out of the named wallet for transfer.completed, and refuses one short of it', async () => {
    const user = await sb.user()
    const w = await wallet(user, 'EUR', 20_000)
    const res = await trigger({event: 'transfer.completed', wallet: w.id, set: {amount: 5000}})
    expect(res.status, res.text).toBe(201)
    const {data} = res.body.event
    expect(data).toMatchObject({amount: 5000, currency: 'EUR', sourceWalletId: w.id, status: 'completed'})
    expect(res.body.objects.user).toBe(user)
    expect(await balance(w.id)).toBe(15_000)
    expect(await balance(data.destinationWalletId)).toBe(5000)
    expect(ledgerProblems(files.file)).toEqual([])

    const [users, transactions] = [count('users'), count('transactions')]
    const short = await trigger({event: 'transfer.completed', wallet: w.id, set: {amount: 50_000}})
    expect(short.status, short.text).toBe(402)
    expect(short.body.code).toBe('INSUFFICIENT_FUNDS')
    // All or nothing: not even the recipient the trigger made first is left.
    expect([count('users'), count('transactions')]).toEqual([users, transactions])
  })

  it('uses the named user’s wallet in the currency, and makes one where they have none', async () => {
    const user = await sb.user()
    const usd = await wallet(user)
    const first = await trigger({event: 'walletsvc.card.created', user, set: {label: 'Travel'}})
    expect(first.status, first.text).toBe(201)
    expect(first.body.event.data).toMatchObject({userId: user, walletId: usd.id, label: 'Travel'})
    const second = await trigger({event: 'wallet.created', user, set: {currency: 'GBP', label: 'Savings'}})
    expect(second.body.event.data).toMatchObject({userId: user, currency: 'GBP', status: 'active'})
    const again = await trigger({event: 'wallet.created', user, set: {currency: 'GBP'}})
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('WALLET_EXISTS')
  })

  it('takes a named user for every one of the 14 events, each event about that user', async () => {
    for (const event of EVENT_NAMES) {
      const user = await sb.user()
      const res = await trigger({event, user})
      expect(res.status, `${event}: ${res.text}`).toBe(201)
      expect(res.body.event.event).toBe(event)
      expect(res.body.objects.user, event).toBe(user)
      const {data} = res.body.event
      const about = data.userId ?? data.user_id ?? data.fromUserId
      if (about !== undefined) expect(about, event).toBe(user)
      // Every id the payload names is a record of this sandbox.
      for (const id of [data.id, data.transferId, data.walletId, data.sourceWalletId].filter(Boolean)) {
        expect(JSON.stringify(Object.values(res.body.objects)) + JSON.stringify(data), event).toContain(id)
      }
    }
    expect(ledgerProblems(files.file)).toEqual([])
  })

  it('sets each settable field of each event to a value its rule accepts', async () => {
    const values: Record<string, unknown> = {
      amount: 7000,
      currency: 'USD',
      description: 'order 42',
      label: 'Label 42',
      merchantName: 'Shop 42',
      note: 'Note 42',
      merchant_name: 'Shop 42',
      transaction_id: 'pos_42',
      transactionId: 'pos_42',
      multiplier: 2,
      'metadata.<key>': '42',
    }
    for (const event of EVENT_NAMES) {
      const set = Object.fromEntries(
        settableNames(event).map((name) => [name.replace('<key>', 'order'), values[name]]),
      )
      if (event.startsWith('roundupsvc.roundup')) set.amount = 4.35
      if (event === 'roundup.processed' || event === 'roundupsvc.roundup.processed')
        set[event === 'roundup.processed' ? 'transactionId' : 'transaction_id'] = `pos_${event}`
      const res = await trigger({event, set})
      expect(res.status, `${event}: ${res.text}`).toBe(201)
      const {data} = res.body.event
      for (const [name, value] of Object.entries(set)) {
        if (name.startsWith('metadata.')) expect(data.metadata, event).toEqual({order: '42'})
        else if (!(name in data) && name !== 'multiplier') {
          // Not in the event's payload (which shows what the spec shows): on the record it names.
          const path = event === 'wallet.created' ? '/v1/wallets' : '/v1/transactions'
          const record = await sb.get(`${path}/${data.id ?? data.transferId}`)
          expect(record.body.data[name], `${event} ${name}`).toBe(value)
        } else if (name !== 'multiplier') expect(data[name], `${event} ${name}`).toEqual(value)
      }
    }
  })

  it('refuses an unknown field naming the event’s fields, a wrong value with its rule, and a field not to set', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await trigger(body)
      expect(res.status, res.text).toBe(400)
      expect(res.body.code).toBe('VALIDATION_ERROR')
      return res.body as {message: string; details: {field: string}}
    }
    const unknown = await bad({event: 'transaction.failed', set: {amout: 5000}})
    expect(unknown.details.field).toBe('set.amout')
    expect(unknown.message).toContain('transaction.failed has no field "amout"')
    expect(unknown.message).toContain('failureReason')
    expect((await bad({event: 'transaction.failed', set: {amount: 'lots'}})).message).toMatch(
      /set\.amount: Expected an integer amount/,
    )
    expect((await bad({event: 'transaction.failed', set: {amount: -5}})).message).toContain('above 0')
    expect((await bad({event: 'wallet.created', set: {currency: 'XYZ'}})).details.field).toBe('set.currency')
    const status = await bad({event: 'transaction.failed', set: {status: 'completed'}})
    expect(status.message).toContain('status of the transaction cannot be set for transaction.failed')
    expect((await bad({event: 'roundup.processed', set: {amount: 1}})).message).toContain('computed')
    expect((await bad({event: 'wallet.created', set: {'metadata.order': '1'}})).message).toContain(
      'wallet.created has no field',
    )
    expect((await bad({event: 'wallet.created', wallet: 'wal_x'})).message).toContain(
      'wallet.created takes no wallet',
    )
    expect((await bad({event: 'transaction.failed', set: {metadata: '42'}})).message).toContain(
      'metadata.<key>=value',
    )
  })

  it('refuses a wallet of another user, of another currency, or of another partner', async () => {
    const [ada, bob] = [await sb.user(), await sb.user()]
    const w = await wallet(ada)
    const other = await trigger({event: 'transaction.completed', user: bob, wallet: w.id})
    expect(other.status).toBe(400)
    expect(other.body.message).toContain(`belongs to ${ada}`)
    const currency = await trigger({event: 'transaction.completed', wallet: w.id, set: {currency: 'EUR'}})
    expect(currency.status).toBe(400)
    expect(currency.body.details.field).toBe('set.currency')
    expect((await trigger({event: 'transaction.completed', wallet: 'wal_nobody'})).status).toBe(404)
    expect((await trigger({event: 'transaction.completed', user: 'usr_nobody'})).status).toBe(404)
  })

  it('says so, leaving nothing, when the flow records no such event with the records named', async () => {
    const user = await sb.user()
    const w = await wallet(user, 'USD', 100_000)
    const users = count('users')
    const res = await trigger({event: 'bnplsvc.payment.failed', wallet: w.id})
    expect(res.status, res.text).toBe(422)
    expect(res.body).toMatchObject({code: 'TRIGGER_NOT_RECORDED', details: {event: 'bnplsvc.payment.failed'}})
    expect(count('users')).toBe(users)
    expect(await balance(w.id)).toBe(100_000)
  })

  it('lists in its table only fields of each event’s record', () => {
    for (const [event, o] of Object.entries(TRIGGER_OVERRIDES)) {
      for (const name of Object.keys(o.set)) expect(o.fields, `${event} ${name}`).toContain(name)
    }
  })
})
