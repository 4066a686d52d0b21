import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {start, type TestSandbox, tempDir} from './helpers.js'
import {balanceOf, createTx, data, eventsFor, expectLedgerBalanced, wallet} from './money-helpers.js'

describe('POST /transactions/{id}/refund', () => {
  let t: TestSandbox
  const files = tempDir()
  beforeAll(async () => {
    t = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 3600})
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  async function cardDeposit(walletId: string, amount = 10_000) {
    return data(
      await createTx(t, {
        amount,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: walletId,
      }),
    )
  }

  test('refunds a card deposit in parts, returning the fee in proportion, until it is refunded', async () => {
    const usd = await wallet(t, 'USD')
    const deposit = await cardDeposit(usd) // fee 320, net 9,680
    const first = await t.post(`/v1/transactions/${deposit.id}/refund`, {
      amount: 4_000,
      reason: 'damaged item',
    })
    expect(first.status).toBe(201)
    expect(data(first)).toMatchObject({
      type: 'refund',
      status: 'completed',
      method: 'card',
      amount: 4_000,
      fee: 128,
      netAmount: 3_872,
      sourceWalletId: usd,
      paymentMethodId: 'pm_card_visa',
      description: 'damaged item',
      originalTransactionId: deposit.id,
      completedAt: expect.any(String),
    })
    expect(data(await t.get(`/v1/transactions/${deposit.id}`))).toMatchObject({
      status: 'completed',
      refundedAmount: 4_000,
    })
    // No amount: whatever is left.
    const rest = data(await t.post(`/v1/transactions/${deposit.id}/refund`))
    expect(rest).toMatchObject({amount: 6_000, fee: 192, netAmount: 5_808})
    expect(data(await t.get(`/v1/transactions/${deposit.id}`))).toMatchObject({
      status: 'refunded',
      refundedAmount: 10_000,
    })
    expect((await balanceOf(t, usd)).total).toBe(0)
    expect(eventsFor(files.file, 'transaction.completed', rest.id)).toHaveLength(1)
    const again = await t.post(`/v1/transactions/${deposit.id}/refund`, {amount: 1})
    expect(again.status).toBe(422)
    expect(again.body.error).toMatchObject({
      code: 'TRANSACTION_NOT_REFUNDABLE',
      details: {id: deposit.id, type: 'deposit', status: 'refunded'},
    })
  })

  test('refuses more than what is left with AMOUNT_TOO_LARGE', async () => {
    const usd = await wallet(t, 'USD')
    const deposit = await cardDeposit(usd, 5_000)
    await t.post(`/v1/transactions/${deposit.id}/refund`, {amount: 1_000})
    const res = await t.post(`/v1/transactions/${deposit.id}/refund`, {amount: 4_001})
    expect(res.status).toBe(400)
    expect(res.body.error).toEqual({
      code: 'AMOUNT_TOO_LARGE',
      message: expect.any(String),
      details: {field: 'amount', maximum: 4_000, currency: 'USD'},
    })
  })

  test('refunds a wallet-to-wallet transfer: both sides get a refund record, both originals follow', async () => {
    const payer = await wallet(t, 'USD', 10_000)
    const payee = await wallet(t, 'USD')
    const out = data(
      await createTx(t, {
        amount: 3_000,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: payer,
        destinationWalletId: payee,
      }),
    )
    const refund = data(await t.post(`/v1/transactions/${out.id}/refund`))
    expect(refund).toMatchObject({
      type: 'refund',
      amount: 3_000,
      fee: 0,
      sourceWalletId: payee,
      destinationWalletId: payer,
      originalTransactionId: out.id,
      pairedTransactionId: expect.stringMatching(/^txn_/),
    })
    const other = data(await t.get(`/v1/transactions/${refund.pairedTransactionId}`))
    expect(other).toMatchObject({
      type: 'refund',
      originalTransactionId: out.pairedTransactionId,
      pairedTransactionId: refund.id,
    })
    expect(data(await t.get(`/v1/transactions/${out.id}`)).status).toBe('refunded')
    expect(data(await t.get(`/v1/transactions/${out.pairedTransactionId}`)).status).toBe('refunded')
    expect((await balanceOf(t, payer)).available).toBe(10_000)
    expect((await balanceOf(t, payee)).available).toBe(0)
    const payeeList = data(await t.get(`/v1/transactions?walletId=${payee}&type=refund`))
    expect(payeeList.transactions.map((x: {id: string}) => x.id)).toEqual([other.id])
  })

  test('a transfer refund needs the money to still be there', async () => {
    const payer = await wallet(t, 'USD', 10_000)
    const payee = await wallet(t, 'USD')
    const out = data(
      await createTx(t, {
        amount: 3_000,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: payer,
        destinationWalletId: payee,
      }),
    )
    await createTx(t, {
      amount: 2_000,
      currency: 'USD',
      method: 'wallet',
      sourceWalletId: payee,
      destinationWalletId: payer,
    })
    const res = await t.post(`/v1/transactions/${out.id}/refund`)
    expect(res.status).toBe(402)
    expect(res.body.error.details).toEqual({
      required: 3_000,
      available: 1_000,
      currency: 'USD',
      walletId: payee,
    })
  })

  test.each([
    ['an ACH deposit', {method: 'ach', paymentMethodId: 'pm_ach_success'}],
    ['a wire deposit', {method: 'wire'}],
  ])('refuses %s with TRANSACTION_NOT_REFUNDABLE', async (_name, fields) => {
    const usd = await wallet(t, 'USD')
    const txn = data(
      await createTx(t, {amount: 10_000, currency: 'USD', destinationWalletId: usd, ...fields}),
    )
    const res = await t.post(`/v1/transactions/${txn.id}/refund`)
    expect(res.status).toBe(422)
    expect(res.body.error).toMatchObject({
      code: 'TRANSACTION_NOT_REFUNDABLE',
      details: {id: txn.id, type: 'deposit', method: fields.method},
    })
  })

  test('refuses a failed payment, and answers 404 for an unknown one', async () => {
    const usd = await wallet(t, 'USD')
    const declined = await createTx(t, {
      amount: 1_000,
      currency: 'USD',
      method: 'card',
      paymentMethodId: 'pm_card_declined',
      destinationWalletId: usd,
    })
    const res = await t.post(`/v1/transactions/${declined.body.error.details.transactionId}/refund`)
    expect(res.status).toBe(422)
    expect(res.body.error.details.status).toBe('failed')
    expect((await t.post('/v1/transactions/txn_nope/refund')).status).toBe(404)
  })

  test('the ledger balances after every refund', () => {
    expectLedgerBalanced(files.file)
  })
})
