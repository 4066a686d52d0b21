import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {SandboxClockSchema} from '../../src/contract/control.js'
import {sleep, start, type TestSandbox, tempDir} from './helpers.js'
import {balanceOf, createTx, data, eventsFor, expectLedgerBalanced, wallet} from './money-helpers.js'

describe('settling asynchronous payments on the sandbox clock', () => {
  let t: TestSandbox
  const files = tempDir()
  beforeAll(async () => {
    t = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 3 * 86_400})
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  test('an ACH deposit completes once the clock passes its estimatedCompletion, emitting transaction.completed', async () => {
    const usd = await wallet(t, 'USD')
    const txn = data(
      await createTx(t, {
        amount: 10_000,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: 'pm_ach_success',
        destinationWalletId: usd,
      }),
    )
    expect(txn.status).toBe('processing')
    const early = await t.post('/_sandbox/clock/advance', {seconds: 86_400})
    expect(early.status).toBe(200)
    expect(data(await t.get(`/v1/transactions/${txn.id}`)).status).toBe('processing')
    const res = await t.post('/_sandbox/clock/advance', {seconds: 2 * 86_400})
    const clock = SandboxClockSchema.parse(res.body)
    expect(clock.settled).toBeGreaterThanOrEqual(1)
    expect(clock.offsetSeconds).toBeGreaterThanOrEqual(3 * 86_400)
    expect(Date.parse(clock.now) - Date.now()).toBeGreaterThan(3 * 86_400_000 - 60_000)
    const settled = data(await t.get(`/v1/transactions/${txn.id}`))
    expect(settled).toMatchObject({status: 'completed', completedAt: txn.estimatedCompletion})
    expect(await balanceOf(t, usd)).toEqual({
      available: 9_920,
      pending: 0,
      reserved: 0,
      total: 9_920,
      currency: 'USD',
    })
    expect(eventsFor(files.file, 'transaction.completed', txn.id)).toEqual([
      {
        id: txn.id,
        amount: 10_000,
        currency: 'USD',
        status: 'completed',
        completedAt: txn.estimatedCompletion,
      },
    ])
    const health = await t.get('/_sandbox/health', {auth: null})
    expect(health.body).toMatchObject({
      settleAfterSeconds: 3 * 86_400,
      clock: {offsetSeconds: clock.offsetSeconds},
    })
  })

  test('a returned ACH deposit fails with an R01 reason, gives the money back and emits transaction.failed', async () => {
    const usd = await wallet(t, 'USD', 500)
    const txn = data(
      await createTx(t, {
        amount: 10_000,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: 'pm_ach_returned',
        destinationWalletId: usd,
      }),
    )
    expect(txn.status).toBe('processing')
    expect((await balanceOf(t, usd)).pending).toBe(9_920)
    await t.post('/_sandbox/clock/advance', {seconds: 3 * 86_400})
    const failed = data(await t.get(`/v1/transactions/${txn.id}`))
    expect(failed).toMatchObject({
      status: 'failed',
      completedAt: null,
      failureReason: 'R01: insufficient funds in the bank account',
    })
    expect(await balanceOf(t, usd)).toEqual({
      available: 500,
      pending: 0,
      reserved: 0,
      total: 500,
      currency: 'USD',
    })
    expect(eventsFor(files.file, 'transaction.failed', txn.id)).toEqual([
      {id: txn.id, amount: 10_000, currency: 'USD', status: 'failed', failureReason: failed.failureReason},
    ])
    expectLedgerBalanced(files.file)
  })

  test('an ACH withdrawal pays out when it settles; a returned one puts the money back; both emit transfer events', async () => {
    const usd = await wallet(t, 'USD', 50_000)
    const paid = data(
      await createTx(t, {
        amount: 10_000,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: 'pm_ach_success',
        sourceWalletId: usd,
      }),
    )
    const returned = data(
      await createTx(t, {
        amount: 20_000,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: 'pm_ach_returned',
        sourceWalletId: usd,
      }),
    )
    expect(await balanceOf(t, usd)).toMatchObject({available: 20_000, reserved: 30_000, total: 50_000})
    await t.post('/_sandbox/clock/advance', {seconds: 3 * 86_400})
    expect(data(await t.get(`/v1/transactions/${paid.id}`)).status).toBe('completed')
    expect(data(await t.get(`/v1/transactions/${returned.id}`)).status).toBe('failed')
    expect(await balanceOf(t, usd)).toEqual({
      available: 40_000,
      pending: 0,
      reserved: 0,
      total: 40_000,
      currency: 'USD',
    })
    expect(eventsFor(files.file, 'transfer.completed', paid.id)).toEqual([
      expect.objectContaining({transferId: paid.id, transfer_id: paid.id, status: 'completed'}),
    ])
    expect(eventsFor(files.file, 'transfer.failed', returned.id)).toEqual([
      expect.objectContaining({
        transferId: returned.id,
        status: 'failed',
        failureReason: expect.stringMatching(/^R01/),
      }),
    ])
    expectLedgerBalanced(files.file)
  })

  test('daily limits follow the sandbox clock', async () => {
    const usd = await wallet(t, 'USD')
    await t.call('PATCH', `/v1/wallets/${usd}`, {body: {limits: {transaction: 10_000, daily: 10_000}}})
    const body = {
      amount: 10_000,
      currency: 'USD',
      method: 'card',
      paymentMethodId: 'pm_card_visa',
      destinationWalletId: usd,
    }
    expect((await createTx(t, body)).status).toBe(201)
    expect((await createTx(t, body)).body.error.details.limit).toBe('daily')
    await t.post('/_sandbox/clock/advance', {seconds: 86_400})
    expect((await createTx(t, body)).status).toBe(201)
  })

  test('the clock refuses a step that is not a positive whole number of seconds', async () => {
    for (const seconds of [0, -5, 1.5, '60']) {
      const res = await t.post('/_sandbox/clock/advance', {seconds})
      expect(res.status, String(seconds)).toBe(400)
      expect(res.body).toMatchObject({error: 'validation_error', code: 'VALIDATION_ERROR'})
    }
  })
})

describe('the settlement timer', () => {
  test('settles payments by itself once settleAfterSeconds have passed', async () => {
    const t = await start({rateLimit: 'off', settleAfterSeconds: 1})
    try {
      const btc = await wallet(t, 'BTC')
      const txn = data(
        await createTx(t, {amount: 100_000, currency: 'BTC', method: 'crypto', destinationWalletId: btc}),
      )
      expect(txn.status).toBe('processing')
      let status = txn.status
      for (let i = 0; i < 40 && status === 'processing'; i++) {
        await sleep(100)
        status = data(await t.get(`/v1/transactions/${txn.id}`)).status
      }
      expect(status).toBe('completed')
      expect((await balanceOf(t, btc)).available).toBe(99_000)
    } finally {
      await t.close()
    }
  })

  test('keeps the clock offset across a restart, and settles what fell due meanwhile', async () => {
    const files = tempDir()
    try {
      const before = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 600})
      const usd = await wallet(before, 'USD')
      const txn = data(
        await createTx(before, {amount: 10_000, currency: 'USD', method: 'wire', destinationWalletId: usd}),
      )
      await before.post('/_sandbox/clock/advance', {seconds: 300})
      await before.close()
      const after = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 600})
      try {
        expect((await after.get('/_sandbox/health', {auth: null})).body.clock.offsetSeconds).toBe(300)
        expect(data(await after.get(`/v1/transactions/${txn.id}`)).status).toBe('processing')
        const res = await after.post('/_sandbox/clock/advance', {seconds: 300})
        expect(res.body).toMatchObject({offsetSeconds: 600, settled: 1})
        expect(data(await after.get(`/v1/transactions/${txn.id}`)).status).toBe('completed')
      } finally {
        await after.close()
      }
    } finally {
      files.cleanup()
    }
  })
})
