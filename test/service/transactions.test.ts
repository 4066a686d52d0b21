import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {TransactionListSchema, TransactionSchema} from '../../src/contract/transactions.js'
import {start, type TestSandbox, tempDir} from './helpers.js'
import {balanceOf, createTx, data, eventsFor, expectLedgerBalanced, wallet} from './money-helpers.js'

const OTHER_FIAT = ['card', 'wire', 'wallet', 'crypto', 'apple_pay', 'google_pay']

describe('POST /transactions', () => {
  let t: TestSandbox
  const files = tempDir()
  beforeAll(async () => {
    // Settlement far away, so that nothing settles behind a test's back.
    t = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 3600})
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  describe('happy paths', () => {
    test('a card deposit completes at once, credits the amount minus 2.9% + 0.30, and emits transaction.completed', async () => {
      const walletId = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 10_000,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: walletId,
        description: 'top-up',
        metadata: {order: '42'},
      })
      expect(res.status).toBe(201)
      const txn = TransactionSchema.parse(data(res))
      expect(txn).toEqual({
        id: expect.stringMatching(/^txn_[0-9a-f]{24}$/),
        type: 'deposit',
        status: 'completed',
        method: 'card',
        amount: 10_000,
        currency: 'USD',
        fee: 320,
        netAmount: 9_680,
        destinationWalletId: walletId,
        paymentMethodId: 'pm_card_visa',
        description: 'top-up',
        metadata: {order: '42'},
        createdAt: expect.any(String),
        completedAt: txn.createdAt,
      })
      expect(await balanceOf(t, walletId)).toEqual({
        available: 9_680,
        pending: 0,
        reserved: 0,
        total: 9_680,
        currency: 'USD',
      })
      // The spec's fields, and the transaction's metadata (docs/money.md#events).
      expect(eventsFor(files.file, 'transaction.completed', txn.id)).toEqual([
        {
          id: txn.id,
          amount: 10_000,
          currency: 'USD',
          status: 'completed',
          completedAt: txn.completedAt,
          metadata: {order: '42'},
        },
      ])
    })

    test.each([
      ['apple_pay', 'pm_apple_pay'],
      ['google_pay', 'pm_google_pay'],
      ['apple_pay', undefined],
      ['google_pay', 'pm_card_visa'],
    ])(
      'a %s deposit (payment method %s) completes at once with the card fee',
      async (method, paymentMethodId) => {
        const walletId = await wallet(t, 'GBP')
        const res = await createTx(t, {
          amount: 5_000,
          currency: 'GBP',
          method,
          paymentMethodId,
          destinationWalletId: walletId,
        })
        expect(res.status).toBe(201)
        // 2.9% of 50.00 GBP, plus 0.30 USD = 0.24 GBP at the sandbox rate of 1.25 USD.
        expect(data(res)).toMatchObject({
          type: 'deposit',
          status: 'completed',
          method,
          fee: 145 + 24,
          netAmount: 4_831,
        })
      },
    )

    test('ACH, wire and crypto deposits are processing, with estimatedCompletion and the money pending', async () => {
      const usd = await wallet(t, 'USD')
      const ach = data(
        await createTx(t, {
          amount: 1_000_000,
          currency: 'USD',
          method: 'ach',
          paymentMethodId: 'pm_ach_success',
          destinationWalletId: usd,
        }),
      )
      expect(ach).toMatchObject({status: 'processing', completedAt: null, fee: 500, netAmount: 999_500})
      expect(Date.parse(ach.estimatedCompletion) - Date.parse(ach.createdAt)).toBe(3600_000)
      const wire = data(
        await createTx(t, {amount: 100_000, currency: 'USD', method: 'wire', destinationWalletId: usd}),
      )
      expect(wire).toMatchObject({status: 'processing', method: 'wire', fee: 1_500, netAmount: 98_500})
      expect(await balanceOf(t, usd)).toMatchObject({
        available: 0,
        pending: 999_500 + 98_500,
        total: 1_098_000,
      })
      const btc = await wallet(t, 'BTC')
      const crypto = data(
        await createTx(t, {
          amount: 1_000_000,
          currency: 'BTC',
          method: 'crypto',
          paymentMethodId: 'pm_crypto_wallet',
          destinationWalletId: btc,
        }),
      )
      expect(crypto).toMatchObject({
        status: 'processing',
        fee: 10_000,
        netAmount: 990_000,
        estimatedCompletion: expect.any(String),
      })
      // Crypto is "global" in the method table: a USD wallet takes a crypto payment too.
      const usdCrypto = data(
        await createTx(t, {
          amount: 10_000,
          currency: 'USD',
          method: 'crypto',
          paymentMethodId: 'pm_crypto_wallet',
          destinationWalletId: usd,
        }),
      )
      expect(usdCrypto).toMatchObject({status: 'processing', fee: 100, netAmount: 9_900})
      expect(eventsFor(files.file, 'transaction.completed', ach.id)).toEqual([])
      expectLedgerBalanced(files.file)
    })

    test('a small ACH payment pays 0.8%, rounded down', async () => {
      const usd = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 1_999,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: 'pm_ach_success',
        destinationWalletId: usd,
      })
      expect(data(res)).toMatchObject({fee: 15, netAmount: 1_984})
    })

    test('a wallet-to-wallet transfer moves the amount without a fee: transfer_out returned, transfer_in for the other side', async () => {
      const source = await wallet(t, 'USD', 10_000)
      const destination = await wallet(t, 'USD', 0)
      const res = await createTx(t, {
        amount: 2_500,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: source,
        destinationWalletId: destination,
      })
      expect(res.status).toBe(201)
      const out = data(res)
      expect(out).toMatchObject({
        type: 'transfer_out',
        status: 'completed',
        method: 'wallet',
        amount: 2_500,
        fee: 0,
        netAmount: 2_500,
        sourceWalletId: source,
        destinationWalletId: destination,
        pairedTransactionId: expect.stringMatching(/^txn_/),
      })
      const incoming = data(await t.get(`/v1/transactions/${out.pairedTransactionId}`))
      expect(incoming).toMatchObject({
        type: 'transfer_in',
        status: 'completed',
        amount: 2_500,
        sourceWalletId: source,
        destinationWalletId: destination,
        pairedTransactionId: out.id,
      })
      expect((await balanceOf(t, source)).available).toBe(7_500)
      expect((await balanceOf(t, destination)).available).toBe(2_500)
      expect(eventsFor(files.file, 'transfer.completed', out.id)).toEqual([
        expect.objectContaining({transferId: out.id, transfer_id: out.id, amount: 2_500, currency: 'USD'}),
      ])
      expect(eventsFor(files.file, 'transaction.completed', incoming.id)).toHaveLength(1)
    })

    test('a wallet transfer may name its source wallet as paymentMethodId', async () => {
      const source = await wallet(t, 'SOL', 10_000_000_000)
      const destination = await wallet(t, 'SOL')
      const res = await createTx(t, {
        amount: 1_000_000_000,
        currency: 'SOL',
        method: 'wallet',
        paymentMethodId: source,
        sourceWalletId: source,
        destinationWalletId: destination,
      })
      expect(data(res)).toMatchObject({type: 'transfer_out', paymentMethodId: source})
    })

    test('a card withdrawal debits the amount and pays out the amount minus the fee', async () => {
      const usd = await wallet(t, 'USD', 20_000)
      const res = await createTx(t, {
        amount: 10_000,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        sourceWalletId: usd,
      })
      expect(data(res)).toMatchObject({
        type: 'withdrawal',
        status: 'completed',
        sourceWalletId: usd,
        fee: 320,
        netAmount: 9_680,
      })
      expect((await balanceOf(t, usd)).available).toBe(10_000)
      expect(eventsFor(files.file, 'transfer.completed', data(res).id)).toHaveLength(1)
    })

    test('an ACH withdrawal reserves the amount until it settles', async () => {
      const usd = await wallet(t, 'USD', 20_000)
      const res = await createTx(t, {
        amount: 5_000,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: 'pm_ach_success',
        sourceWalletId: usd,
      })
      expect(data(res)).toMatchObject({type: 'withdrawal', status: 'processing', fee: 40, netAmount: 4_960})
      expect(await balanceOf(t, usd)).toEqual({
        available: 15_000,
        pending: 0,
        reserved: 5_000,
        total: 20_000,
        currency: 'USD',
      })
      expectLedgerBalanced(files.file)
    })
  })

  describe('errors', () => {
    test('AMOUNT_TOO_SMALL below 0.50 USD, converted at the sandbox rate and rounded up', async () => {
      const usd = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 49,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: usd,
      })
      expect(res.status).toBe(400)
      expect(res.body.error).toEqual({
        code: 'AMOUNT_TOO_SMALL',
        message: expect.any(String),
        details: {minimum: 50, currency: 'USD'},
      })
      const jpy = await wallet(t, 'JPY')
      const yen = await createTx(t, {
        amount: 76,
        currency: 'JPY',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: jpy,
      })
      expect(yen.body.error.details).toEqual({minimum: 77, currency: 'JPY'})
      const ok = await createTx(t, {
        amount: 77,
        currency: 'JPY',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: jpy,
      })
      expect(ok.status).toBe(201)
    })

    test('INVALID_PAYMENT_METHOD lists exactly the methods the currency accepts (EUR: wallet, not the spec example sepa; ACH is USD only)', async () => {
      const eur = await wallet(t, 'EUR', 10_000)
      const other = await wallet(t, 'EUR')
      const res = await createTx(t, {
        amount: 1_000,
        currency: 'EUR',
        method: 'apple_pay',
        destinationWalletId: eur,
      })
      expect(res.status).toBe(400)
      expect(res.body.error).toEqual({
        code: 'INVALID_PAYMENT_METHOD',
        message: expect.any(String),
        details: {
          field: 'method',
          method: 'apple_pay',
          currency: 'EUR',
          supported: ['card', 'wire', 'wallet', 'crypto'],
        },
      })
      // The list says what is accepted: sepa, in the interface's example, is not; wallet is.
      const sepa = await createTx(t, {
        amount: 1_000,
        currency: 'EUR',
        method: 'sepa',
        destinationWalletId: eur,
      })
      expect(sepa.status).toBe(400)
      expect(sepa.body.error.code).not.toBe('INVALID_PAYMENT_METHOD')
      const transfer = await createTx(t, {
        amount: 1_000,
        currency: 'EUR',
        method: 'wallet',
        sourceWalletId: eur,
        destinationWalletId: other,
      })
      expect(transfer.status, JSON.stringify(transfer.body)).toBe(201)
      const gbp = await createTx(t, {
        amount: 1_000,
        currency: 'GBP',
        method: 'ach',
        paymentMethodId: 'pm_ach_success',
        destinationWalletId: eur,
      })
      expect(gbp.body.error.details).toEqual({
        field: 'method',
        method: 'ach',
        currency: 'GBP',
        supported: OTHER_FIAT,
      })
      const eth = await createTx(t, {
        amount: 10 ** 15,
        currency: 'ETH',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: eur,
      })
      expect(eth.body.error.details.supported).toEqual(['crypto', 'wallet'])
    })

    test('INVALID_CURRENCY for an unsupported currency', async () => {
      const res = await createTx(t, {
        amount: 1_000,
        currency: 'XYZ',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: 'wal_x',
      })
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({
        code: 'INVALID_CURRENCY',
        details: {field: 'currency', value: 'XYZ'},
      })
    })

    test('PAYMENT_METHOD_NOT_FOUND for an unknown payment method, INVALID_PAYMENT_METHOD for one of the wrong kind', async () => {
      const usd = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 1_000,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_nope',
        destinationWalletId: usd,
      })
      expect(res.status).toBe(404)
      expect(res.body.error).toEqual({
        code: 'PAYMENT_METHOD_NOT_FOUND',
        message: expect.any(String),
        details: {paymentMethodId: 'pm_nope'},
      })
      const wrong = await createTx(t, {
        amount: 1_000,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: usd,
      })
      expect(wrong.status).toBe(400)
      expect(wrong.body.error).toMatchObject({
        code: 'INVALID_PAYMENT_METHOD',
        details: {
          field: 'paymentMethodId',
          paymentMethodId: 'pm_card_visa',
          paymentMethodType: 'card',
          method: 'ach',
        },
      })
    })

    test('INSUFFICIENT_FUNDS (402) with required, available, currency and walletId', async () => {
      const source = await wallet(t, 'USD', 1_000)
      const destination = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 1_001,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: source,
        destinationWalletId: destination,
      })
      expect(res.status).toBe(402)
      expect(res.body.error).toEqual({
        code: 'INSUFFICIENT_FUNDS',
        message: expect.any(String),
        details: {required: 1_001, available: 1_000, currency: 'USD', walletId: source},
      })
      const withdrawal = await createTx(t, {
        amount: 5_000,
        currency: 'USD',
        method: 'wire',
        sourceWalletId: source,
      })
      expect(withdrawal.body.error.details).toEqual({
        required: 5_000,
        available: 1_000,
        currency: 'USD',
        walletId: source,
      })
      expect(await balanceOf(t, source)).toMatchObject({available: 1_000, reserved: 0})
    })

    test('CARD_DECLINED (402) leaves a failed transaction and emits transaction.failed with failureReason', async () => {
      const usd = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 2_000,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_declined',
        destinationWalletId: usd,
      })
      expect(res.status).toBe(402)
      expect(res.body.error).toEqual({
        code: 'CARD_DECLINED',
        message: expect.any(String),
        details: {
          transactionId: expect.stringMatching(/^txn_/),
          paymentMethodId: 'pm_card_declined',
          declineCode: 'card_declined',
        },
      })
      const id = res.body.error.details.transactionId
      const failed = data(await t.get(`/v1/transactions/${id}`))
      expect(failed).toMatchObject({
        status: 'failed',
        completedAt: null,
        failureReason: expect.stringContaining('declined'),
      })
      expect(eventsFor(files.file, 'transaction.failed', id)).toEqual([
        {id, amount: 2_000, currency: 'USD', status: 'failed', failureReason: failed.failureReason},
      ])
      expect((await balanceOf(t, usd)).total).toBe(0)
    })

    test('a card with insufficient funds is 402 INSUFFICIENT_FUNDS and a failed transaction', async () => {
      const usd = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 2_000,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_insufficient_funds',
        destinationWalletId: usd,
      })
      expect(res.status).toBe(402)
      expect(res.body.error.details).toEqual({
        required: 2_000,
        available: 0,
        currency: 'USD',
        walletId: usd,
        transactionId: expect.stringMatching(/^txn_/),
        paymentMethodId: 'pm_card_insufficient_funds',
        declineCode: 'insufficient_funds',
      })
      const failed = data(await t.get(`/v1/transactions/${res.body.error.details.transactionId}`))
      expect(failed.failureReason).toMatch(/^insufficient_funds/)
    })

    test('AMOUNT_TOO_LARGE beyond the per-transaction limit, and beyond the daily volume', async () => {
      const usd = await wallet(t, 'USD')
      const res = await createTx(t, {
        amount: 1_000_001,
        currency: 'USD',
        method: 'wire',
        destinationWalletId: usd,
      })
      expect(res.status).toBe(400)
      expect(res.body.error).toEqual({
        code: 'AMOUNT_TOO_LARGE',
        message: expect.any(String),
        details: {limit: 'transaction', maximum: 1_000_000, currency: 'USD', walletId: usd},
      })
      await t.call('PATCH', `/v1/wallets/${usd}`, {body: {limits: {daily: 15_000, transaction: 10_000}}})
      expect(
        (await createTx(t, {amount: 10_000, currency: 'USD', method: 'wire', destinationWalletId: usd}))
          .status,
      ).toBe(201)
      const daily = await createTx(t, {
        amount: 5_001,
        currency: 'USD',
        method: 'wire',
        destinationWalletId: usd,
      })
      expect(daily.body.error.details).toEqual({
        limit: 'daily',
        maximum: 15_000,
        used: 10_000,
        currency: 'USD',
        walletId: usd,
      })
      expect(
        (await createTx(t, {amount: 5_000, currency: 'USD', method: 'wire', destinationWalletId: usd}))
          .status,
      ).toBe(201)
    })

    test('WALLET_NOT_ACTIVE (422) for a suspended wallet, either side', async () => {
      const source = await wallet(t, 'USD', 10_000)
      const destination = await wallet(t, 'USD')
      await t.call('PATCH', `/v1/wallets/${destination}`, {body: {status: 'suspended'}})
      const res = await createTx(t, {
        amount: 1_000,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: source,
        destinationWalletId: destination,
      })
      expect(res.status).toBe(422)
      expect(res.body.error).toEqual({
        code: 'WALLET_NOT_ACTIVE',
        message: expect.any(String),
        details: {walletId: destination, status: 'suspended'},
      })
    })

    test('NOT_FOUND for an unknown wallet, CURRENCY_MISMATCH for a wallet of another currency', async () => {
      const usd = await wallet(t, 'USD', 10_000)
      const missing = await createTx(t, {
        amount: 1_000,
        currency: 'USD',
        method: 'wire',
        destinationWalletId: 'wal_nope',
      })
      expect(missing.status).toBe(404)
      expect(missing.body.error.details).toEqual({resource: 'wallet', id: 'wal_nope'})
      const gbp = await wallet(t, 'GBP')
      const res = await createTx(t, {
        amount: 1_000,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: usd,
        destinationWalletId: gbp,
      })
      expect(res.status).toBe(400)
      expect(res.body.error).toEqual({
        code: 'CURRENCY_MISMATCH',
        message: expect.any(String),
        details: {walletId: gbp, walletCurrency: 'GBP', currency: 'USD'},
      })
    })

    test.each([
      [{method: 'card', destinationWalletId: 'wal_x'}, 'paymentMethodId'],
      [{method: 'ach', destinationWalletId: 'wal_x'}, 'paymentMethodId'],
      [{method: 'wallet', destinationWalletId: 'wal_x'}, 'sourceWalletId'],
      [{method: 'wallet', sourceWalletId: 'wal_x'}, 'destinationWalletId'],
      [{method: 'wallet', sourceWalletId: 'wal_x', destinationWalletId: 'wal_x'}, 'destinationWalletId'],
      [{method: 'wire'}, 'destinationWalletId'],
      [{method: 'wire', sourceWalletId: 'wal_x', destinationWalletId: 'wal_y'}, 'sourceWalletId'],
      [
        {method: 'card', paymentMethodId: 'pm_card_visa', destinationWalletId: 'wal_x', amount: 10.5},
        'amount',
      ],
      [{method: 'cash', destinationWalletId: 'wal_x'}, 'method'],
    ])('refuses %j naming %s', async (fields, field) => {
      const res = await createTx(t, {amount: 1_000, currency: 'USD', ...fields})
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({code: 'VALIDATION_ERROR', details: {field}})
    })
  })

  describe('reading', () => {
    test('GET /transactions/{id} answers 404 for an unknown id', async () => {
      const res = await t.get('/v1/transactions/txn_nope')
      expect(res.status).toBe(404)
      expect(res.body.error).toMatchObject({
        code: 'NOT_FOUND',
        details: {resource: 'transaction', id: 'txn_nope'},
      })
    })

    test('lists newest first, filtered by wallet, user, status and type, in pages', async () => {
      const userId = await t.user()
      const a = await wallet(t, 'CAD', 100_000, userId)
      const b = await wallet(t, 'AUD', 100_000, userId)
      const ids: string[] = []
      for (let i = 0; i < 5; i++) {
        ids.push(
          data(
            await createTx(t, {
              amount: 1_000 + i,
              currency: 'CAD',
              method: 'card',
              paymentMethodId: 'pm_card_visa',
              destinationWalletId: a,
            }),
          ).id,
        )
      }
      await createTx(t, {amount: 1_000, currency: 'AUD', method: 'wire', sourceWalletId: b})
      const byWallet = TransactionListSchema.parse(
        data(await t.get(`/v1/transactions?walletId=${a}&type=deposit`)),
      )
      expect(byWallet.transactions.map((x) => x.id)).toEqual([...ids].reverse())
      expect(byWallet.hasMore).toBe(false)
      const byUser = data(await t.get(`/v1/transactions?userId=${userId}`))
      // Five deposits, one withdrawal and the two initial balances.
      expect(byUser.transactions).toHaveLength(8)
      const processing = data(await t.get(`/v1/transactions?userId=${userId}&status=processing`))
      expect(processing.transactions.map((x: {type: string}) => x.type)).toEqual(['withdrawal'])
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const qs = new URLSearchParams({
          walletId: a,
          type: 'deposit',
          limit: '2',
          ...(cursor ? {cursor} : {}),
        })
        const page = data(await t.get(`/v1/transactions?${qs}`))
        seen.push(...page.transactions.map((x: {id: string}) => x.id))
        cursor = page.nextCursor
      } while (cursor !== null)
      expect(seen).toEqual([...ids].reverse())
      for (const qs of ['limit=0', 'limit=101', 'cursor=bogus', 'status=done', 'colour=red']) {
        expect((await t.get(`/v1/transactions?${qs}`)).status, qs).toBe(400)
      }
    })
  })

  test('every posting balances and every wallet equals its ledger', () => {
    expectLedgerBalanced(files.file)
  })
})
