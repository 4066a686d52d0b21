import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {BankAccountSchema, LinkTokenSchema} from '../../src/contract/accounts.js'
import {PaymentMethodSchema} from '../../src/contract/payment-methods.js'
import {start, type TestSandbox} from './helpers.js'
import {balanceOf, createTx, data, wallet} from './money-helpers.js'

describe('bank accounts', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off', settleAfterSeconds: 3600})
  })
  afterAll(() => t.close())

  test('connect gives a 30-minute link token; exchanging it connects an account usable for ACH', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 0, userId)
    const connect = await t.post(`/v1/users/${userId}/accounts/connect`)
    expect(connect.status).toBe(201)
    const link = LinkTokenSchema.parse(data(connect))
    expect(link.link_token).toBe(link.linkToken)
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(29 * 60_000)
    const exchanged = await t.post(`/v1/users/${userId}/accounts`, {link_token: link.linkToken})
    expect(exchanged.status).toBe(201)
    const account = BankAccountSchema.parse(data(exchanged))
    expect(account).toMatchObject({userId, status: 'connected', bankName: 'Sandbox Bank', last4: '6789'})
    expect(data(await t.get(`/v1/users/${userId}/accounts`))).toEqual({accounts: [account]})

    const deposit = await createTx(t, {
      amount: 10_000,
      currency: 'USD',
      method: 'ach',
      paymentMethodId: account.paymentMethodId,
      destinationWalletId: usd,
    })
    expect(deposit.status).toBe(201)
    expect(data(deposit)).toMatchObject({status: 'processing', paymentMethodId: account.paymentMethodId})
    await t.post('/_sandbox/clock/advance', {seconds: 3600})
    expect(data(await t.get(`/v1/transactions/${data(deposit).id}`)).status).toBe('completed')
    expect((await balanceOf(t, usd)).available).toBe(9_920)
  })

  test('an account linked as ach_returned fails its payments when they settle', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 0, userId)
    const {linkToken} = data(await t.post(`/v1/users/${userId}/accounts/connect`))
    const account = data(
      await t.post(`/v1/users/${userId}/accounts`, {link_token: linkToken, test_account: 'ach_returned'}),
    )
    const txn = data(
      await createTx(t, {
        amount: 10_000,
        currency: 'USD',
        method: 'ach',
        paymentMethodId: account.paymentMethodId,
        destinationWalletId: usd,
      }),
    )
    await t.post('/_sandbox/clock/advance', {seconds: 3600})
    expect(data(await t.get(`/v1/transactions/${txn.id}`))).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/^R01/),
    })
  })

  test('a link token works once, for its own user, for 30 minutes', async () => {
    const userId = await t.user()
    const other = await t.user()
    const {linkToken} = data(await t.post(`/v1/users/${userId}/accounts/connect`))
    const wrongUser = await t.post(`/v1/users/${other}/accounts`, {link_token: linkToken})
    expect(wrongUser.status).toBe(400)
    expect(wrongUser.body.error).toMatchObject({
      code: 'LINK_TOKEN_INVALID',
      details: {field: 'link_token', reason: 'other_user'},
    })
    expect((await t.post(`/v1/users/${userId}/accounts`, {link_token: linkToken})).status).toBe(201)
    const reused = await t.post(`/v1/users/${userId}/accounts`, {link_token: linkToken})
    expect(reused.body.error.details.reason).toBe('used')
    const unknown = await t.post(`/v1/users/${userId}/accounts`, {link_token: 'link-sandbox-nope'})
    expect(unknown.body.error.details.reason).toBe('unknown')
    const late = data(await t.post(`/v1/users/${userId}/accounts/connect`)).linkToken
    await t.post('/_sandbox/clock/advance', {seconds: 1801})
    expect((await t.post(`/v1/users/${userId}/accounts`, {link_token: late})).body.error.details.reason).toBe(
      'expired',
    )
  })

  test('answers 404 for an unknown user', async () => {
    for (const res of [
      await t.post('/v1/users/usr_nope/accounts/connect'),
      await t.get('/v1/users/usr_nope/accounts'),
      await t.post('/v1/users/usr_nope/payment-methods', {type: 'card', token: 'tok_visa'}),
    ]) {
      expect(res.status).toBe(404)
      expect(res.body.error.details).toEqual({resource: 'user', id: 'usr_nope'})
    }
  })
})

describe('payment methods', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off', settleAfterSeconds: 3600})
  })
  afterAll(() => t.close())

  test('saves test tokens as the user’s payment methods, which behave like the shared ones', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 0, userId)
    const visa = await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_visa'})
    expect(visa.status).toBe(201)
    expect(PaymentMethodSchema.parse(data(visa))).toEqual({
      id: expect.stringMatching(/^pm_[0-9a-f]{24}$/),
      userId,
      type: 'card',
      brand: 'visa',
      last4: '4242',
      status: 'active',
      createdAt: expect.any(String),
    })
    const declined = data(
      await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_card_declined'}),
    )
    const ok = await createTx(t, {
      amount: 1_000,
      currency: 'USD',
      method: 'card',
      paymentMethodId: data(visa).id,
      destinationWalletId: usd,
    })
    expect(ok.status).toBe(201)
    const no = await createTx(t, {
      amount: 1_000,
      currency: 'USD',
      method: 'card',
      paymentMethodId: declined.id,
      destinationWalletId: usd,
    })
    expect(no.status).toBe(402)
    expect(no.body.error.code).toBe('CARD_DECLINED')
    const list = data(await t.get(`/v1/users/${userId}/payment-methods?limit=1`))
    expect(list).toMatchObject({hasMore: true, nextCursor: expect.any(String)})
    expect(list.paymentMethods.map((m: {id: string}) => m.id)).toEqual([data(visa).id])
    const rest = data(await t.get(`/v1/users/${userId}/payment-methods?cursor=${list.nextCursor}`))
    expect(rest).toMatchObject({hasMore: false, nextCursor: null, paymentMethods: [{id: declined.id}]})
  })

  test('a saved method serves only its own user’s wallets', async () => {
    const userId = await t.user()
    const method = data(
      await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_visa'}),
    )
    const stranger = await wallet(t, 'USD')
    const res = await createTx(t, {
      amount: 1_000,
      currency: 'USD',
      method: 'card',
      paymentMethodId: method.id,
      destinationWalletId: stranger,
    })
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({
      code: 'INVALID_PAYMENT_METHOD',
      details: {paymentMethodId: method.id, walletId: stranger},
    })
  })

  test('refuses an unknown token, or a token of another type', async () => {
    const userId = await t.user()
    const unknown = await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_nope'})
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toMatchObject({
      code: 'INVALID_PAYMENT_METHOD',
      details: {field: 'token', token: 'tok_nope'},
    })
    expect(unknown.body.error.details.supported).toContain('tok_ach_returned')
    const mismatch = await t.post(`/v1/users/${userId}/payment-methods`, {
      type: 'card',
      token: 'tok_ach_success',
    })
    expect(mismatch.body.error.details).toEqual({field: 'type', type: 'card', tokenType: 'ach'})
  })

  test('removes a saved method and the bank account linked through it; new payments from it are refused', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 0, userId)
    const card = data(await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_visa'}))
    const paid = await createTx(t, {
      amount: 1_000,
      currency: 'USD',
      method: 'card',
      paymentMethodId: card.id,
      destinationWalletId: usd,
    })
    expect(paid.status).toBe(201)
    const before = (await balanceOf(t, usd)).available
    const {linkToken} = data(await t.post(`/v1/users/${userId}/accounts/connect`))
    const account = data(await t.post(`/v1/users/${userId}/accounts`, {link_token: linkToken}))

    const removed = await t.call('DELETE', `/v1/users/${userId}/payment-methods/${card.id}`)
    expect(removed.status).toBe(200)
    expect(data(removed)).toEqual({id: card.id, deleted: true})
    const removedAch = await t.call(
      'DELETE',
      `/v1/users/${userId}/payment-methods/${account.paymentMethodId}`,
    )
    expect(data(removedAch)).toEqual({id: account.paymentMethodId, deleted: true})

    expect(data(await t.get(`/v1/users/${userId}/payment-methods`)).paymentMethods).toEqual([])
    expect(data(await t.get(`/v1/users/${userId}/accounts`))).toEqual({accounts: []})
    // What was paid stays as it was, the method's id with it.
    expect(data(await t.get(`/v1/transactions/${data(paid).id}`))).toMatchObject({
      status: 'completed',
      paymentMethodId: card.id,
    })
    const again = await createTx(t, {
      amount: 1_000,
      currency: 'USD',
      method: 'card',
      paymentMethodId: card.id,
      destinationWalletId: usd,
    })
    expect(again.status).toBe(404)
    expect(again.body.error).toMatchObject({
      code: 'PAYMENT_METHOD_NOT_FOUND',
      details: {paymentMethodId: card.id},
    })
    expect((await balanceOf(t, usd)).available).toBe(before)
  })

  test('removing answers 404 for a method already removed, another user’s, or a shared test method', async () => {
    const userId = await t.user()
    const other = await t.user()
    const card = data(await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_visa'}))
    const remove = (user: string, id: string) => t.call('DELETE', `/v1/users/${user}/payment-methods/${id}`)
    const strangers = await remove(other, card.id)
    expect(strangers.status).toBe(404)
    expect(strangers.body.error).toMatchObject({
      code: 'NOT_FOUND',
      details: {resource: 'payment_method', id: card.id},
    })
    expect(data(await t.get(`/v1/users/${userId}/payment-methods`)).paymentMethods).toHaveLength(1)
    expect((await remove(userId, card.id)).status).toBe(200)
    expect((await remove(userId, card.id)).status).toBe(404)
    expect((await remove(userId, 'pm_card_visa')).status).toBe(404)
    expect((await remove('usr_nobody', card.id)).body.error).toMatchObject({details: {resource: 'user'}})
  })
})
