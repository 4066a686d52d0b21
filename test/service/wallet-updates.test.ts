import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {BalanceSchema, WalletSchema} from '../../src/contract/wallets.js'
import {start, type TestSandbox} from './helpers.js'
import {createTx, data, wallet} from './money-helpers.js'

describe('PATCH /wallets/{id} and GET /wallets/{id}/balance', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off', settleAfterSeconds: 3600})
  })
  afterAll(() => t.close())

  const patch = (id: string, body: unknown) => t.call('PATCH', `/v1/wallets/${id}`, {body})

  test('changes the label and limits, and moves updatedAt', async () => {
    const id = await wallet(t, 'USD')
    const before = data(await t.get(`/v1/wallets/${id}`))
    const res = await patch(id, {label: 'Savings', limits: {transaction: 50_000, daily: 100_000}})
    expect(res.status).toBe(200)
    const updated = WalletSchema.parse(data(res))
    expect(updated).toMatchObject({
      label: 'Savings',
      status: 'active',
      limits: {transaction: 50_000, daily: 100_000, monthly: 10_000_000},
    })
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt))
    expect(data(await t.get(`/v1/wallets/${id}`))).toEqual(updated)
  })

  test('refuses limits out of order', async () => {
    const id = await wallet(t, 'USD')
    const res = await patch(id, {limits: {transaction: 3_000_000}})
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'limits'}})
    for (const limits of [{daily: 0}, {monthly: -5}, {transaction: 1.5}, {weekly: 5}]) {
      expect((await patch(id, {limits})).status, JSON.stringify(limits)).toBe(400)
    }
  })

  test('suspends, freezes and reactivates; a suspended wallet moves no money', async () => {
    const id = await wallet(t, 'USD', 5_000)
    expect(data(await patch(id, {status: 'suspended'})).status).toBe('suspended')
    const res = await createTx(t, {amount: 1_000, currency: 'USD', method: 'wire', sourceWalletId: id})
    expect(res.status).toBe(422)
    expect(data(await patch(id, {status: 'frozen'})).status).toBe('frozen')
    expect(data(await patch(id, {status: 'active'})).status).toBe('active')
    expect(
      (await createTx(t, {amount: 1_000, currency: 'USD', method: 'wire', sourceWalletId: id})).status,
    ).toBe(201)
  })

  test('closes only an empty, settled wallet; closed is final', async () => {
    const id = await wallet(t, 'USD', 5_000)
    const refused = await patch(id, {status: 'closed'})
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      details: {walletId: id, from: 'active', to: 'closed', balance: {total: 5_000}},
    })
    const other = await wallet(t, 'USD')
    await createTx(t, {
      amount: 5_000,
      currency: 'USD',
      method: 'wallet',
      sourceWalletId: id,
      destinationWalletId: other,
    })
    const closed = await patch(id, {status: 'closed'})
    expect(closed.status).toBe(200)
    expect(data(closed).status).toBe('closed')
    for (const body of [{status: 'active'}, {label: 'again'}]) {
      const res = await patch(id, body)
      expect(res.status).toBe(422)
      expect(res.body.error).toMatchObject({code: 'INVALID_STATE_TRANSITION', details: {from: 'closed'}})
    }
    const pending = await patch(other, {status: 'pending_verification'})
    expect(pending.status).toBe(422)
    expect(pending.body.error.details).toMatchObject({from: 'active', to: 'pending_verification'})
  })

  test('will not close a wallet with a payment still settling', async () => {
    const id = await wallet(t, 'USD', 5_000)
    await createTx(t, {
      amount: 5_000,
      currency: 'USD',
      method: 'ach',
      paymentMethodId: 'pm_ach_success',
      sourceWalletId: id,
    })
    const res = await patch(id, {status: 'closed'})
    expect(res.status).toBe(422)
    expect(res.body.error.details.balance).toMatchObject({available: 0, reserved: 5_000})
  })

  test('answers 404 for an unknown wallet, and refuses unknown fields', async () => {
    expect((await patch('wal_nope', {label: 'x'})).status).toBe(404)
    const id = await wallet(t, 'USD')
    expect((await patch(id, {balance: 5})).body.error.code).toBe('VALIDATION_ERROR')
    expect((await patch(id, {label: 'x'.repeat(51)})).body.error.details.field).toBe('label')
  })

  test('GET /wallets/{id}/balance answers the balance alone', async () => {
    const id = await wallet(t, 'EUR', 12_345)
    const res = await t.get(`/v1/wallets/${id}/balance`)
    expect(res.status).toBe(200)
    expect(BalanceSchema.parse(data(res))).toEqual({
      available: 12_345,
      pending: 0,
      reserved: 0,
      total: 12_345,
      currency: 'EUR',
    })
    expect((await t.get('/v1/wallets/wal_nope/balance')).status).toBe(404)
  })
})
