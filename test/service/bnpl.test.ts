import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {BnplPaymentListSchema, BnplPaymentSchema, PrequalificationSchema} from '../../src/contract/bnpl.js'
import {start, type TestSandbox, tempDir} from './helpers.js'
import {balanceOf, data, eventsFor, expectLedgerBalanced, wallet} from './money-helpers.js'

const DAY = 86_400
/** The sandbox's processor delay in these tests: nothing is collected until the clock is advanced. */
const SETTLE = 3_600

describe('buy now, pay later (sandbox)', () => {
  let t: TestSandbox
  const files = tempDir()
  beforeAll(async () => {
    t = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: SETTLE})
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  const advance = (seconds: number) => t.post('/_sandbox/clock/advance', {seconds})
  /** A user with a USD wallet holding `balance` cents. */
  const customer = async (balance: number, email = 'ada@example.test') => {
    const userId = await t.user({email})
    return {userId, walletId: await wallet(t, 'USD', balance, userId)}
  }
  const create = (userId: string, amount: number, extra: Record<string, unknown> = {}) =>
    t.post('/v1/bnplsvc/payments', {userId, amount, currency: 'USD', merchantName: 'Allbirds', ...extra})
  const created = async (userId: string, amount: number) => {
    const res = await create(userId, amount)
    expect(res.status, res.text).toBe(201)
    return BnplPaymentSchema.parse(data(res))
  }
  const get = async (id: string) => BnplPaymentSchema.parse(data(await t.get(`/v1/bnplsvc/payments/${id}`)))
  const cancel = (id: string) => t.post(`/v1/bnplsvc/payments/${id}/cancel`)

  test('prequalify: approved up to the limit, declined by the documented rules', async () => {
    const {userId} = await customer(0)
    const ok = await t.post('/v1/bnplsvc/prequalify', {userId, amount: 25_000})
    expect(ok.status).toBe(200)
    expect(PrequalificationSchema.parse(data(ok))).toEqual({
      userId,
      decision: 'approved',
      currency: 'USD',
      amount: 25_000,
      limit: 100_000,
      available: 100_000,
      minimum: 1_000,
      reasons: [],
    })
    const cases: [Record<string, unknown>, string[]][] = [
      [{amount: 100_001}, ['over_limit']],
      [{amount: 999}, ['amount_too_small']],
      [{amount: 91_000, currency: 'EUR'}, ['over_limit']], // the limit is 909.09 EUR
    ]
    for (const [body, reasons] of cases) {
      const res = data(await t.post('/v1/bnplsvc/prequalify', {userId, ...body}))
      expect(res).toMatchObject({decision: 'declined', reasons})
    }
    expect(data(await t.post('/v1/bnplsvc/prequalify', {userId, currency: 'EUR'}))).toMatchObject({
      decision: 'approved',
      amount: null,
      limit: 90_909,
    })
    const tagged = await t.user({email: 'grace+decline@example.test'})
    expect(data(await t.post('/v1/bnplsvc/prequalify', {userId: tagged, amount: 5_000}))).toMatchObject({
      decision: 'declined',
      reasons: ['sandbox_decline'],
    })
    const btc = await t.post('/v1/bnplsvc/prequalify', {userId, amount: 5_000, currency: 'BTC'})
    expect(btc.body.error).toMatchObject({
      code: 'INVALID_CURRENCY',
      details: {field: 'currency', value: 'BTC'},
    })
    const nobody = await t.post('/v1/bnplsvc/prequalify', {userId: 'usr_nope'})
    expect(nobody.body.error).toMatchObject({code: 'INVALID_USER_ID', details: {field: 'userId'}})
  })

  test('a payment is pending with four instalments two weeks apart, the first taking the remainder', async () => {
    const {userId, walletId} = await customer(50_000)
    const p = await created(userId, 10_001)
    expect(p).toMatchObject({
      userId,
      walletId,
      status: 'pending',
      amount: 10_001,
      installments: 4,
      installmentAmount: 2_500,
      paidInstallments: 0,
      outstandingAmount: 10_001,
    })
    expect(p.schedule.map((i) => i.amount)).toEqual([2_501, 2_500, 2_500, 2_500])
    const due = p.schedule.map((i) => Date.parse(i.dueAt))
    expect(due[0]).toBe(Date.parse(p.createdAt))
    expect(due.slice(1).map((d, i) => (d - (due[i] ?? 0)) / 1000)).toEqual([14 * DAY, 14 * DAY, 14 * DAY])
    expect(eventsFor(files.file, 'bnplsvc.payment.created', p.id)).toHaveLength(1)
    // What the user owes comes off what is left of the limit.
    expect(data(await t.post('/v1/bnplsvc/prequalify', {userId, amount: 90_000}))).toMatchObject({
      decision: 'declined',
      available: 100_000 - 10_001,
      reasons: ['over_limit'],
    })
  })

  test('pending → active → completed: each instalment is collected on the sandbox clock', async () => {
    const {userId, walletId} = await customer(30_000)
    const p = await created(userId, 24_000)
    expect((await balanceOf(t, walletId)).available).toBe(30_000)
    await advance(SETTLE)
    const active = await get(p.id)
    expect(active).toMatchObject({
      status: 'active',
      paidInstallments: 1,
      paidAmount: 6_000,
      outstandingAmount: 18_000,
    })
    expect((await balanceOf(t, walletId)).available).toBe(24_000)
    const first = active.schedule[0]!
    expect(first).toMatchObject({status: 'paid', transactionId: expect.stringMatching(/^txn_/)})
    expect(data(await t.get(`/v1/transactions/${first.transactionId}`))).toMatchObject({
      type: 'payment',
      amount: 6_000,
      status: 'completed',
    })
    await advance(14 * DAY)
    expect(await get(p.id)).toMatchObject({status: 'active', paidInstallments: 2})
    // Two instalments fall due in one jump: both are collected, in order.
    await advance(28 * DAY)
    const done = await get(p.id)
    expect(done).toMatchObject({status: 'completed', paidInstallments: 4, outstandingAmount: 0})
    expect(done.completedAt).toBe(done.schedule[3]?.paidAt)
    expect((await balanceOf(t, walletId)).available).toBe(30_000 - 24_000)
    const [event] = eventsFor(files.file, 'bnplsvc.payment.completed', p.id)
    expect(event).toMatchObject({id: p.id, status: 'completed', paidInstallments: 4})
    expectLedgerBalanced(files.file)
  })

  test('pending → failed when the first instalment cannot be collected', async () => {
    const {userId, walletId} = await customer(1_000)
    const p = await created(userId, 8_000)
    await advance(SETTLE)
    const failed = await get(p.id)
    expect(failed).toMatchObject({
      status: 'failed',
      paidInstallments: 0,
      outstandingAmount: 0,
      failureReason: 'instalment 1 of 4 could not be collected: INSUFFICIENT_FUNDS',
    })
    expect(failed.schedule.map((i) => i.status)).toEqual(['failed', 'cancelled', 'cancelled', 'cancelled'])
    expect(failed.failedAt).toBeTruthy()
    expect((await balanceOf(t, walletId)).available).toBe(1_000)
    expect(eventsFor(files.file, 'bnplsvc.payment.failed', p.id)).toHaveLength(1)
  })

  test('active → failed when a later instalment cannot be collected; what was paid stays paid', async () => {
    const {userId, walletId} = await customer(2_000)
    const p = await created(userId, 8_000)
    await advance(SETTLE)
    expect((await get(p.id)).status).toBe('active')
    await advance(14 * DAY)
    const failed = await get(p.id)
    expect(failed).toMatchObject({status: 'failed', paidInstallments: 1, paidAmount: 2_000})
    expect(failed.schedule.map((i) => i.status)).toEqual(['paid', 'failed', 'cancelled', 'cancelled'])
    expect((await balanceOf(t, walletId)).available).toBe(0)
  })

  test('pending → cancelled moves no money; active → cancelled refunds what was collected', async () => {
    const {userId, walletId} = await customer(20_000)
    const pending = await created(userId, 4_000)
    const res = await cancel(pending.id)
    expect(res.status).toBe(200)
    expect(BnplPaymentSchema.parse(data(res))).toMatchObject({status: 'cancelled', outstandingAmount: 0})
    expect(data(res).schedule.every((i: {status: string}) => i.status === 'cancelled')).toBe(true)

    const active = await created(userId, 8_000)
    await advance(SETTLE)
    expect((await balanceOf(t, walletId)).available).toBe(18_000)
    const cancelled = BnplPaymentSchema.parse(data(await cancel(active.id)))
    expect(cancelled).toMatchObject({status: 'cancelled', paidInstallments: 0})
    expect(cancelled.cancelledAt).toBeTruthy()
    const first = cancelled.schedule[0]!
    expect(first).toMatchObject({status: 'refunded', refundTransactionId: expect.stringMatching(/^txn_/)})
    expect(data(await t.get(`/v1/transactions/${first.refundTransactionId}`))).toMatchObject({
      type: 'refund',
      amount: 2_000,
      originalTransactionId: first.transactionId,
    })
    expect((await balanceOf(t, walletId)).available).toBe(20_000)
    // Nothing more is collected after a cancel.
    await advance(60 * DAY)
    expect((await balanceOf(t, walletId)).available).toBe(20_000)
    expectLedgerBalanced(files.file)
  })

  test('a paid instalment cannot be refunded behind the payment: 422, and cancel still refunds it', async () => {
    const {userId, walletId} = await customer(20_000)
    const p = await created(userId, 8_000)
    await advance(SETTLE)
    const first = (await get(p.id)).schedule[0]!
    const refund = await t.post(`/v1/transactions/${first.transactionId}/refund`, {})
    expect(refund.status).toBe(422)
    expect(refund.body.error).toMatchObject({
      code: 'TRANSACTION_NOT_REFUNDABLE',
      details: {owner: {product: 'bnplsvc', paymentId: p.id, installment: 1}},
    })
    expect(refund.body.error.message).toMatch(/cancel the payment/)
    expect(await get(p.id)).toMatchObject({status: 'active', paidInstallments: 1})
    expect((await balanceOf(t, walletId)).available).toBe(18_000)
    const cancelled = await cancel(p.id)
    expect(cancelled.status, cancelled.text).toBe(200)
    expect(data(cancelled).schedule[0]).toMatchObject({status: 'refunded'})
    expect((await balanceOf(t, walletId)).available).toBe(20_000)
    expectLedgerBalanced(files.file)
  })

  test('cancel is refused from completed, cancelled and failed, in the error shape', async () => {
    const {userId} = await customer(100_000)
    const done = await created(userId, 4_000)
    const gone = await created(userId, 4_000)
    await cancel(gone.id)
    await advance(SETTLE + 42 * DAY)
    const poor = await customer(0)
    const failed = await created(poor.userId, 4_000)
    await advance(SETTLE)
    for (const [id, status] of [
      [done.id, 'completed'],
      [gone.id, 'cancelled'],
      [failed.id, 'failed'],
    ] as const) {
      expect((await get(id)).status).toBe(status)
      const res = await cancel(id)
      expect(res.status).toBe(422)
      expect(res.body).toMatchObject({
        success: false,
        error: {
          code: 'INVALID_STATE_TRANSITION',
          message: `BNPL payment ${id} is ${status}: only pending or active payments can be cancelled`,
          details: {resource: 'bnpl_payment', id, status, action: 'cancel', allowed: ['pending', 'active']},
        },
        meta: {requestId: expect.stringMatching(/^req_/)},
      })
    }
    expect((await cancel('bnpl_nope')).body.error).toMatchObject({
      code: 'NOT_FOUND',
      details: {id: 'bnpl_nope'},
    })
  })

  test('create is refused when declined, without a wallet, or from a frozen wallet', async () => {
    const declinedUser = await customer(0, 'radia+decline@example.test')
    const declined = await create(declinedUser.userId, 5_000)
    expect(declined.status).toBe(422)
    expect(declined.body.error).toMatchObject({
      code: 'BNPL_DECLINED',
      details: {reasons: ['sandbox_decline'], limit: 100_000, currency: 'USD'},
    })
    // The decision comes first: declined too in a currency the user has no wallet in.
    expect((await create(declinedUser.userId, 5_000, {currency: 'GBP'})).body.error.code).toBe(
      'BNPL_DECLINED',
    )
    const {userId, walletId} = await customer(0)
    expect((await create(userId, 200_000)).body.error.details.reasons).toEqual(['over_limit'])
    const noWallet = await create(userId, 5_000, {currency: 'GBP'})
    expect(noWallet.status).toBe(404)
    expect(noWallet.body.error.details).toMatchObject({resource: 'wallet', userId, currency: 'GBP'})
    await t.call('PATCH', `/v1/wallets/${walletId}`, {body: {status: 'frozen'}})
    expect((await create(userId, 5_000)).body.error.code).toBe('WALLET_NOT_ACTIVE')
    expect((await create('usr_nope', 5_000)).body.error.code).toBe('INVALID_USER_ID')
    expect((await create(userId, 12.5)).body.error.code).toBe('VALIDATION_ERROR')
  })

  test('list filters by user and status, newest first, with cursor pagination', async () => {
    const {userId} = await customer(100_000)
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await created(userId, 2_000 + i)).id)
    await cancel(ids[1]!)
    const page1 = BnplPaymentListSchema.parse(
      data(await t.get(`/v1/bnplsvc/payments?userId=${userId}&limit=2`)),
    )
    expect(page1.payments.map((p) => p.id)).toEqual([ids[2], ids[1]])
    expect(page1.hasMore).toBe(true)
    const page2 = data(
      await t.get(`/v1/bnplsvc/payments?userId=${userId}&limit=2&cursor=${page1.nextCursor}`),
    )
    expect(page2).toMatchObject({hasMore: false, nextCursor: null})
    expect(page2.payments.map((p: {id: string}) => p.id)).toEqual([ids[0]])
    const cancelled = data(await t.get(`/v1/bnplsvc/payments?userId=${userId}&status=cancelled`))
    expect(cancelled.payments.map((p: {id: string}) => p.id)).toEqual([ids[1]])
    for (const bad of ['status=late', 'cursor=nope', 'limit=0', 'colour=red']) {
      expect((await t.get(`/v1/bnplsvc/payments?${bad}`)).body.error.code, bad).toBe('VALIDATION_ERROR')
    }
    expect((await t.get('/v1/bnplsvc/payments/bnpl_nope')).status).toBe(404)
  })
})
