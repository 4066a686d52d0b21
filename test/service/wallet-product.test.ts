import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {
  EligibilitySchema,
  P2PTransferSchema,
  UserBalanceSchema,
  VirtualCardSchema,
  WalletPaymentSchema,
} from '../../src/contract/wallet-product.js'
import {luhnCheckDigit} from '../../src/sandbox/wallet-product/service.js'
import {start, type TestSandbox, tempDir} from './helpers.js'
import {balanceOf, data, eventsFor, expectLedgerBalanced, wallet} from './money-helpers.js'

function passesLuhn(number: string): boolean {
  return luhnCheckDigit(number.slice(0, -1)) === number.slice(-1)
}

describe('wallet product (/walletsvc)', () => {
  let t: TestSandbox
  const files = tempDir()
  beforeAll(async () => {
    t = await start({data: files.file, rateLimit: 'off'})
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  test('check-eligibility says yes, or lists every reason for no', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 5_000, userId)
    const yes = await t.post('/v1/walletsvc/payments/check-eligibility', {
      userId,
      amount: 1_000,
      currency: 'USD',
    })
    expect(yes.status).toBe(200)
    expect(EligibilitySchema.parse(data(yes))).toEqual({
      eligible: true,
      userId,
      walletId: usd,
      amount: 1_000,
      currency: 'USD',
      available: 5_000,
      reasons: [],
    })
    // Without a currency, USD (as the payment itself).
    const tooMuch = data(
      await t.post('/v1/walletsvc/payments/check-eligibility', {userId, amount: 2_000_000}),
    )
    expect(tooMuch.currency).toBe('USD')
    expect(tooMuch).toMatchObject({eligible: false, reasons: ['AMOUNT_TOO_LARGE', 'INSUFFICIENT_FUNDS']})
    const small = data(
      await t.post('/v1/walletsvc/payments/check-eligibility', {userId, amount: 10, currency: 'GBP'}),
    )
    expect(small).toMatchObject({
      eligible: false,
      walletId: null,
      available: 0,
      reasons: ['AMOUNT_TOO_SMALL', 'NO_WALLET'],
    })
    await t.call('PATCH', `/v1/wallets/${usd}`, {body: {status: 'frozen'}})
    const frozen = data(
      await t.post('/v1/walletsvc/payments/check-eligibility', {userId, amount: 1_000, currency: 'USD'}),
    )
    expect(frozen.reasons).toEqual(['WALLET_NOT_ACTIVE'])
    const nobody = await t.post('/v1/walletsvc/payments/check-eligibility', {
      userId: 'usr_nope',
      amount: 1_000,
      currency: 'USD',
    })
    expect(nobody.body.error).toMatchObject({
      code: 'INVALID_USER_ID',
      details: {field: 'userId', value: 'usr_nope'},
    })
  })

  test('a payment debits the user’s wallet, records a payment transaction, and is idempotent', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 5_000, userId)
    const headers = {'idempotency-key': 'pay-1'}
    const body = {userId, amount: 1_250, merchantName: 'Corner Café'}
    const res = await t.post('/v1/walletsvc/payments', body, {headers})
    expect(res.status).toBe(201)
    const payment = WalletPaymentSchema.parse(data(res))
    expect(payment).toMatchObject({
      userId,
      walletId: usd,
      amount: 1_250,
      currency: 'USD',
      status: 'completed',
      merchantName: 'Corner Café',
    })
    expect((await t.post('/v1/walletsvc/payments', body, {headers})).text).toBe(res.text)
    expect((await balanceOf(t, usd)).available).toBe(3_750)
    const txn = data(await t.get(`/v1/transactions/${payment.transactionId}`))
    expect(txn).toMatchObject({
      type: 'payment',
      status: 'completed',
      method: 'wallet',
      sourceWalletId: usd,
      description: 'Payment to Corner Café',
    })
    expect(eventsFor(files.file, 'walletsvc.payment.completed', payment.id)).toEqual([
      expect.objectContaining({id: payment.id, transactionId: txn.id, amount: 1_250, status: 'completed'}),
    ])
    // A wallet payment can be refunded.
    const refund = await t.post(`/v1/transactions/${txn.id}/refund`, {amount: 250})
    expect(data(refund)).toMatchObject({type: 'refund', amount: 250, destinationWalletId: usd})
    expect((await balanceOf(t, usd)).available).toBe(4_000)
  })

  test('a payment is refused without funds, without a wallet, or below the minimum', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 100, userId)
    const poor = await t.post('/v1/walletsvc/payments', {userId, amount: 1_000})
    expect(poor.status).toBe(402)
    expect(poor.body.error.details).toEqual({required: 1_000, available: 100, currency: 'USD', walletId: usd})
    const none = await t.post('/v1/walletsvc/payments', {userId, amount: 1_000, currency: 'EUR'})
    expect(none.status).toBe(404)
    expect(none.body.error.details).toEqual({resource: 'wallet', userId, currency: 'EUR'})
    expect((await t.post('/v1/walletsvc/payments', {userId, amount: 10})).body.error.code).toBe(
      'AMOUNT_TOO_SMALL',
    )
  })

  test('the user balance lists every wallet', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 1_000, userId)
    const btc = await wallet(t, 'BTC', 5_000_000, userId)
    const res = await t.get(`/v1/walletsvc/users/${userId}/balance`)
    expect(UserBalanceSchema.parse(data(res))).toEqual({
      userId,
      balances: [
        {walletId: usd, available: 1_000, pending: 0, reserved: 0, total: 1_000, currency: 'USD'},
        {walletId: btc, available: 5_000_000, pending: 0, reserved: 0, total: 5_000_000, currency: 'BTC'},
      ],
    })
    expect((await t.get('/v1/walletsvc/users/usr_nope/balance')).status).toBe(404)
  })

  test('a virtual card shows its full number once; it is stored masked and replays masked', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 0, userId)
    const headers = {'idempotency-key': 'card-1'}
    const res = await t.post(`/v1/walletsvc/users/${userId}/cards`, {label: 'Online'}, {headers})
    expect(res.status).toBe(201)
    const card = VirtualCardSchema.parse(data(res))
    expect(card).toMatchObject({userId, walletId: usd, brand: 'visa', status: 'active', label: 'Online'})
    expect(card.number).toMatch(/^4\d{15}$/)
    expect(passesLuhn(card.number ?? '')).toBe(true)
    expect(card.last4).toBe(card.number?.slice(-4))
    expect(card.cvc).toMatch(/^\d{3}$/)
    const replay = data(await t.post(`/v1/walletsvc/users/${userId}/cards`, {label: 'Online'}, {headers}))
    expect(replay).toEqual({...card, number: undefined, cvc: undefined})
    expect(replay).not.toHaveProperty('number')
    expect(eventsFor(files.file, 'walletsvc.card.created', card.id)).toEqual([
      expect.not.objectContaining({number: expect.anything()}),
    ])
    // Neither the number nor the CVC is anywhere in the data file (or its write-ahead log).
    for (const name of readdirSync(files.dir)) {
      const bytes = readFileSync(join(files.dir, name)).toString('latin1')
      expect(bytes.includes(card.number ?? ''), name).toBe(false)
    }
  })

  test('a card needs a wallet of the user, active', async () => {
    const userId = await t.user()
    const none = await t.post(`/v1/walletsvc/users/${userId}/cards`, {})
    expect(none.status).toBe(404)
    expect(none.body.error.details).toEqual({resource: 'wallet', userId, currency: 'USD'})
    const stranger = await wallet(t, 'EUR')
    expect((await t.post(`/v1/walletsvc/users/${userId}/cards`, {walletId: stranger})).status).toBe(404)
    const eur = await wallet(t, 'EUR', 0, userId)
    await t.call('PATCH', `/v1/wallets/${eur}`, {body: {status: 'suspended'}})
    expect((await t.post(`/v1/walletsvc/users/${userId}/cards`, {walletId: eur})).status).toBe(422)
  })

  test('P2P moves money between two users’ wallets atomically, with both transactions and its event', async () => {
    const alice = await t.user({email: 'alice@example.com'})
    const bob = await t.user({email: 'bob@example.com'})
    const from = await wallet(t, 'EUR', 10_000, alice)
    const to = await wallet(t, 'EUR', 0, bob)
    const res = await t.post('/v1/walletsvc/p2p/send', {
      fromUserId: alice,
      toUserId: bob,
      amount: 2_500,
      currency: 'EUR',
      note: 'dinner',
    })
    expect(res.status).toBe(201)
    const p2p = P2PTransferSchema.parse(data(res))
    expect(p2p).toMatchObject({
      fromWalletId: from,
      toWalletId: to,
      amount: 2_500,
      currency: 'EUR',
      status: 'completed',
      note: 'dinner',
    })
    const [outId, inId] = p2p.transactionIds
    expect(data(await t.get(`/v1/transactions/${outId}`))).toMatchObject({
      type: 'transfer_out',
      pairedTransactionId: inId,
    })
    expect(data(await t.get(`/v1/transactions/${inId}`))).toMatchObject({
      type: 'transfer_in',
      destinationWalletId: to,
    })
    expect((await balanceOf(t, from)).available).toBe(7_500)
    expect((await balanceOf(t, to)).available).toBe(2_500)
    expect(eventsFor(files.file, 'walletsvc.p2p.sent', p2p.id)).toHaveLength(1)
    // Without a currency, USD.
    await wallet(t, 'USD', 1_000, alice)
    await wallet(t, 'USD', 0, bob)
    const usd = await t.post('/v1/walletsvc/p2p/send', {fromUserId: alice, toUserId: bob, amount: 300})
    expect(usd.status, JSON.stringify(usd.body)).toBe(201)
    expect(data(usd)).toMatchObject({currency: 'USD', amount: 300})

    const poor = await t.post('/v1/walletsvc/p2p/send', {
      fromUserId: bob,
      toUserId: alice,
      amount: 9_999,
      currency: 'EUR',
    })
    expect(poor.status).toBe(402)
    expect((await balanceOf(t, to)).available).toBe(2_500)
    const self = await t.post('/v1/walletsvc/p2p/send', {
      fromUserId: bob,
      toUserId: bob,
      amount: 100,
      currency: 'EUR',
    })
    expect(self.body.error).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'toUserId'}})
    const nowhere = await t.post('/v1/walletsvc/p2p/send', {
      fromUserId: alice,
      toUserId: bob,
      amount: 1_000,
      currency: 'GBP',
    })
    expect(nowhere.body.error.details).toEqual({resource: 'wallet', userId: alice, currency: 'GBP'})
    const unknown = await t.post('/v1/walletsvc/p2p/send', {
      fromUserId: alice,
      toUserId: 'usr_nope',
      amount: 1_000,
      currency: 'EUR',
    })
    expect(unknown.body.error).toMatchObject({code: 'INVALID_USER_ID', details: {field: 'toUserId'}})
  })

  test('the ledger balances after the wallet product’s movements', () => {
    expectLedgerBalanced(files.file)
  })
})
