import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {majorToMinor, minorToMajorText} from '../../src/contract/money/amounts.js'
import {
  PendingRoundupsSchema,
  RoundupSchema,
  RoundupSettingsRecordSchema,
  RoundupTransferSchema,
  roundupStep,
} from '../../src/contract/roundups.js'
import {query, start, type TestSandbox, tempDir} from './helpers.js'
import {balanceOf, data, eventsFor, expectLedgerBalanced, wallet} from './money-helpers.js'

const settingsPath = (user: string) => `/v1/roundupsvc/users/${user}/roundups/settings`
const put = (t: TestSandbox, path: string, body: unknown) => t.call('PUT', path, {body})

let seq = 0
const txnId = () => `pos_${Date.now()}_${++seq}`

describe('round-ups: amounts in major units', () => {
  test('reads a JSON number as the decimal it was written as, in the smallest unit', () => {
    expect(majorToMinor(4.35, 'USD')).toBe(435n)
    expect(majorToMinor(0.3, 'USD')).toBe(30n)
    // A float computed by the caller is not a decimal anyone wrote: refused, not rounded.
    expect(() => majorToMinor(0.1 + 0.2, 'USD')).toThrow('more than 15 significant digits')
    expect(majorToMinor(5, 'USD')).toBe(500n)
    expect(majorToMinor(1e-2, 'EUR')).toBe(1n)
    expect(majorToMinor(1234, 'JPY')).toBe(1234n)
    expect(majorToMinor(1e21, 'USD')).toBe(100000000000000000000000n)
    expect(majorToMinor(123456789012.34, 'USD')).toBe(12345678901234n)
    expect(() => majorToMinor(4.355, 'USD')).toThrow('USD has 2 decimal places; this has 3')
    expect(() => majorToMinor(4.5, 'JPY')).toThrow('JPY has no decimal places')
    expect(() => majorToMinor(1234567890.1234567, 'USD')).toThrow('more than 15 significant digits')
    expect(minorToMajorText(5n, 'USD')).toBe('0.05')
    expect(minorToMajorText(500n, 'JPY')).toBe('500')
    expect(roundupStep('USD')).toBe(100n)
    expect(roundupStep('JPY')).toBe(100n)
  })
})

describe('round-ups (sandbox)', () => {
  let t: TestSandbox
  const files = tempDir()
  beforeAll(async () => {
    t = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 3600})
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  const process = (user: string, amount: number | string, id = txnId(), merchant = 'Blue Bottle Coffee') =>
    t.call('POST', '/v1/transactions/process', {
      raw: `{"user_id":"${user}","amount":${amount},"merchant_name":"${merchant}","transaction_id":"${id}"}`,
    })
  const roundupOf = async (user: string, amount: number | string) => {
    const res = await process(user, amount)
    expect(res.status, res.text).toBe(200)
    return RoundupSchema.parse(data(res))
  }
  const enabled = async (settings: Record<string, unknown> = {}) => {
    const user = await t.user()
    const res = await t.post(`/v1/roundupsvc/users/${user}/roundups/enable`, settings)
    expect(res.status, res.text).toBe(200)
    return user
  }

  test('a new user has the default settings, off', async () => {
    const user = await t.user()
    const res = await t.get(settingsPath(user))
    expect(res.status).toBe(200)
    expect(RoundupSettingsRecordSchema.parse(data(res))).toEqual({
      user_id: user,
      enabled: false,
      multiplier: 1,
      max_roundup_amount: 5,
      destination_account_id: null,
      currency: 'USD',
      created_at: null,
      updated_at: null,
    })
    expect(res.text).toContain('"max_roundup_amount":5.00')
    expect((await t.get(settingsPath('usr_nope'))).body.error).toMatchObject({
      code: 'NOT_FOUND',
      details: {resource: 'user', id: 'usr_nope'},
    })
  })

  test.each([
    // multiplier, cap, purchase → round-up, capped
    [1, 5, '4.35', '0.65', false],
    [2, 5, '4.35', '1.30', false],
    [3, 5, '4.35', '1.95', false],
    [5, 5, '4.35', '3.25', false],
    [1, 1, '4.35', '0.65', false],
    [2, 1, '4.35', '1.00', true],
    [3, 1, '4.35', '1.00', true],
    [5, 1, '4.35', '1.00', true],
    [5, 0.5, '12.01', '0.50', true],
    [1, 5, '0.01', '0.99', false],
    [5, 5, '0.01', '4.95', false],
    [3, 2.5, '9.10', '2.50', true],
  ])(
    'multiplier %i, cap %s: a %s USD purchase rounds up %s',
    async (multiplier, cap, amount, expected, capped) => {
      const user = await enabled({multiplier, max_roundup_amount: cap})
      const res = await process(user, amount)
      expect(res.text).toContain(`"roundup_amount":${expected}`)
      expect(RoundupSchema.parse(data(res))).toMatchObject({
        roundup_amount: Number(expected),
        amount: Number(amount),
        multiplier,
        capped,
        currency: 'USD',
        status: 'pending',
        reason: null,
        duplicate: false,
      })
    },
  )

  test('a whole-dollar purchase has no spare change and yields 0, skipped', async () => {
    const user = await enabled({multiplier: 5})
    expect(await roundupOf(user, '4.00')).toMatchObject({
      roundup_amount: 0,
      status: 'skipped',
      reason: 'no_spare_change',
    })
    expect(data(await t.get(`/v1/roundupsvc/users/${user}/roundups/pending`))).toMatchObject({
      count: 0,
      total: 0,
    })
  })

  test('a user with round-ups off gets 0 with the reason, and no event', async () => {
    const user = await t.user()
    const r = await roundupOf(user, '4.35')
    expect(r).toMatchObject({roundup_amount: 0, status: 'skipped', reason: 'roundups_disabled'})
    expect(eventsFor(files.file, 'roundupsvc.roundup.processed', r.id)).toEqual([])
    expect(eventsFor(files.file, 'roundup.processed', r.id)).toEqual([])
  })

  test('JPY has no minor unit: purchases round up to the next 100 yen', async () => {
    const user = await enabled({currency: 'JPY', max_roundup_amount: 500})
    expect(await roundupOf(user, 1234)).toMatchObject({roundup_amount: 66, currency: 'JPY'})
    expect(await roundupOf(user, 1200)).toMatchObject({roundup_amount: 0, reason: 'no_spare_change'})
    await put(t, settingsPath(user), {multiplier: 5, max_roundup_amount: 300})
    expect(await roundupOf(user, 1234)).toMatchObject({roundup_amount: 300, capped: true})
    const refused = await process(user, 12.5)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Invalid request body: amount: JPY has no decimal places',
      details: {field: 'amount'},
    })
  })

  test('amounts with more decimals than the currency, or beyond 15 digits, are refused, not rounded', async () => {
    const user = await enabled()
    for (const [amount, message] of [
      ['4.355', 'USD has 2 decimal places; this has 3'],
      ['1234567890.1234567', 'more than 15 significant digits'],
    ] as const) {
      const res = await process(user, amount)
      expect(res.status).toBe(400)
      expect(res.body.error.details.field).toBe('amount')
      expect(res.body.error.message).toContain(message)
    }
    const cap = await put(t, settingsPath(user), {max_roundup_amount: 5.001})
    expect(cap.status).toBe(400)
    expect(cap.body.error.details.field).toBe('max_roundup_amount')
    for (const amount of [0, -1]) expect((await process(user, amount)).status).toBe(400)
  })

  test('a multiplier outside 1, 2, 3, 5 is a 400 naming the allowed values, on every settings path', async () => {
    const user = await t.user()
    const attempts = [
      put(t, settingsPath(user), {multiplier: 4}),
      put(t, `/v1/users/${user}/roundup-settings`, {enabled: true, multiplier: 10, max_roundup_amount: 5}),
      t.post(`/v1/roundupsvc/users/${user}/roundups/enable`, {multiplier: 0}),
    ]
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'Invalid request body: multiplier: Must be one of 1, 2, 3, 5',
        details: {field: 'multiplier', allowed_multipliers: [1, 2, 3, 5]},
      })
    }
    expect(data(await t.get(settingsPath(user))).created_at).toBeNull()
  })

  test('the same transaction_id processed twice yields one round-up, replayed', async () => {
    const user = await enabled({multiplier: 2})
    const id = txnId()
    const first = RoundupSchema.parse(data(await process(user, '4.35', id)))
    const again = RoundupSchema.parse(data(await process(user, '4.35', id)))
    expect(again).toEqual({...first, duplicate: true})
    const pending = PendingRoundupsSchema.parse(
      data(await t.get(`/v1/roundupsvc/users/${user}/roundups/pending`)),
    )
    expect(pending).toMatchObject({count: 1, total: 1.3})
    expect(eventsFor(files.file, 'roundupsvc.roundup.processed', first.id)).toHaveLength(1)
    expect(eventsFor(files.file, 'roundup.processed', first.id)).toHaveLength(1)
    const other = await process(user, '5.35', id)
    expect(other.status).toBe(409)
    expect(other.body.error).toMatchObject({
      code: 'DUPLICATE_TRANSACTION',
      details: {field: 'transaction_id', transaction_id: id, roundup_id: first.id},
    })
  })

  test('processing records roundupsvc.roundup.processed and roundup.processed with data.amount', async () => {
    const userId = await t.user()
    const usd = await wallet(t, 'USD', 10_000, userId)
    await t.post(`/v1/roundupsvc/users/${userId}/roundups/enable`)
    const r = await roundupOf(userId, '4.35')
    const [product] = eventsFor(files.file, 'roundupsvc.roundup.processed', r.id)
    expect(product).toMatchObject({
      id: r.id,
      user_id: userId,
      roundup_amount: 0.65,
      amount: 4.35,
      currency: 'USD',
    })
    const [common] = eventsFor(files.file, 'roundup.processed', r.id)
    expect(common).toEqual({
      id: r.id,
      userId,
      walletId: usd,
      transactionId: r.transaction_id,
      amount: 65,
      currency: 'USD',
      createdAt: r.processed_at,
    })
  })

  test('both families act on one settings record and one set of pending round-ups', async () => {
    const user = await t.user()
    const common = await put(t, `/v1/users/${user}/roundup-settings`, {
      enabled: true,
      multiplier: 3,
      max_roundup_amount: 2,
    })
    expect(common.status).toBe(200)
    expect(data(await t.get(settingsPath(user)))).toMatchObject({
      enabled: true,
      multiplier: 3,
      max_roundup_amount: 2,
    })
    await put(t, settingsPath(user), {multiplier: 2})
    const r = await roundupOf(user, '4.35')
    expect(r.roundup_amount).toBe(1.3)
    const pending = data(await t.get(`/v1/roundupsvc/users/${user}/roundups/pending`))
    expect(pending.roundups.map((p: {id: string}) => p.id)).toEqual([r.id])
    // The common PUT replaces: a missing field is refused, and no destination given means none.
    const partial = await put(t, `/v1/users/${user}/roundup-settings`, {enabled: false})
    expect(partial.status).toBe(400)
    const off = data(await t.post(`/v1/roundupsvc/users/${user}/roundups/enable`, {max_roundup_amount: 7.5}))
    expect(off).toMatchObject({enabled: true, multiplier: 2, max_roundup_amount: 7.5})
    const empty = await put(t, settingsPath(user), {})
    expect(empty.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('at least one'),
    })
  })

  test('destination_account_id must exist, hold the round-up currency and not be the source wallet', async () => {
    const user = await t.user()
    const own = await wallet(t, 'USD', 0, user)
    const eur = await wallet(t, 'EUR', 0)
    const savings = await wallet(t, 'USD', 0)
    const otherUser = await t.user()
    const connect = data(await t.post(`/v1/users/${otherUser}/accounts/connect`))
    const othersBank = data(await t.post(`/v1/users/${otherUser}/accounts`, {link_token: connect.link_token}))
    const cases: [string, string][] = [
      ['wal_000000000000000000000000', 'not_found'],
      [own, 'source_wallet'],
      [eur, 'currency_mismatch'],
      [othersBank.id, 'other_user'],
    ]
    for (const [id, reason] of cases) {
      const res = await put(t, settingsPath(user), {destination_account_id: id})
      expect(res.status, id).toBe(400)
      expect(res.body.error).toMatchObject({
        code: 'INVALID_DESTINATION_ACCOUNT',
        details: {field: 'destination_account_id', value: id, reason},
      })
    }
    const ok = await put(t, settingsPath(user), {destination_account_id: savings})
    expect(data(ok).destination_account_id).toBe(savings)
    // A USD wallet stops fitting once the round-ups are in EUR.
    const euro = await put(t, settingsPath(user), {currency: 'EUR'})
    expect(euro.body.error.details).toMatchObject({reason: 'currency_mismatch'})
    const cleared = await put(t, settingsPath(user), {currency: 'EUR', destination_account_id: null})
    expect(data(cleared)).toMatchObject({
      currency: 'EUR',
      destination_account_id: null,
      max_roundup_amount: 5,
    })
    const crypto = await put(t, settingsPath(user), {currency: 'BTC'})
    expect(crypto.body.error).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'currency'}})
  })

  test('the currency cannot change while round-ups are pending', async () => {
    const user = await enabled()
    await roundupOf(user, '4.35')
    const res = await put(t, settingsPath(user), {currency: 'EUR'})
    expect(res.status).toBe(422)
    expect(res.body.error).toMatchObject({
      code: 'ROUNDUP_CURRENCY_LOCKED',
      details: {currency: 'USD', requested: 'EUR', pending_total: 0.65, pending_count: 1},
    })
  })

  test('transfer moves exactly the pending total as one ledger transfer, then nothing is pending', async () => {
    const userId = await t.user()
    const source = await wallet(t, 'USD', 10_000, userId)
    const savings = await wallet(t, 'USD', 0)
    await t.post(`/v1/roundupsvc/users/${userId}/roundups/enable`, {
      multiplier: 2,
      destination_account_id: savings,
    })
    for (const amount of ['4.35', '12.99', '7.20', '3.00']) await roundupOf(userId, amount)
    const pending = data(await t.get(`/v1/roundupsvc/users/${userId}/roundups/pending`))
    expect(pending).toMatchObject({count: 3, total: 2.92}) // 1.30 + 0.02 + 1.60
    const res = await t.post(`/v1/roundupsvc/users/${userId}/roundups/transfer`)
    expect(res.status, res.text).toBe(201)
    const transfer = RoundupTransferSchema.parse(data(res))
    expect(transfer).toMatchObject({
      amount: 2.92,
      currency: 'USD',
      roundup_count: 3,
      source_wallet_id: source,
      destination_account_id: savings,
      destination_type: 'wallet',
      status: 'completed',
    })
    expect((await balanceOf(t, source)).available).toBe(10_000 - 292)
    expect((await balanceOf(t, savings)).available).toBe(292)
    const txn = data(await t.get(`/v1/transactions/${transfer.transaction_id}`))
    expect(txn).toMatchObject({
      type: 'transfer_out',
      amount: 292,
      status: 'completed',
      destinationWalletId: savings,
    })
    const postings = query(
      files.file,
      'SELECT COUNT(DISTINCT transaction_id) AS n FROM ledger_entries WHERE transaction_id = ?',
      transfer.transaction_id,
    )
    expect(postings[0]?.n).toBe(1)
    expect(data(await t.get(`/v1/roundupsvc/users/${userId}/roundups/pending`))).toMatchObject({
      count: 0,
      total: 0,
    })
    const [event] = eventsFor(files.file, 'roundupsvc.transfer.completed', transfer.id)
    expect(event).toMatchObject({id: transfer.id, amount: 2.92, roundup_count: 3, status: 'completed'})
    const again = await t.post(`/v1/roundupsvc/users/${userId}/roundups/transfer`)
    expect(again.status).toBe(422)
    expect(again.body.error.code).toBe('NO_PENDING_ROUNDUPS')
    expectLedgerBalanced(files.file)
  })

  test('a round-up transfer cannot be refunded through the generic refund: it stays transferred', async () => {
    const userId = await t.user()
    const source = await wallet(t, 'USD', 10_000, userId)
    const savings = await wallet(t, 'USD', 0)
    await t.post(`/v1/roundupsvc/users/${userId}/roundups/enable`, {destination_account_id: savings})
    await roundupOf(userId, '4.35')
    const transfer = RoundupTransferSchema.parse(
      data(await t.post(`/v1/roundupsvc/users/${userId}/roundups/transfer`)),
    )
    const refund = await t.post(`/v1/transactions/${transfer.transaction_id}/refund`, {})
    expect(refund.status).toBe(422)
    expect(refund.body.error).toMatchObject({
      code: 'TRANSACTION_NOT_REFUNDABLE',
      details: {owner: {product: 'roundupsvc', transferId: transfer.id}},
    })
    expect((await balanceOf(t, source)).available).toBe(10_000 - 65)
    expect((await balanceOf(t, savings)).available).toBe(65)
  })

  test('a transfer is refused without a destination or funds, and leaves the round-ups pending', async () => {
    const userId = await t.user()
    const source = await wallet(t, 'USD', 100, userId)
    await t.post(`/v1/roundupsvc/users/${userId}/roundups/enable`, {multiplier: 5})
    await roundupOf(userId, '0.01') // 4.95
    const noDestination = await t.post(`/v1/roundupsvc/users/${userId}/roundups/transfer`)
    expect(noDestination.status).toBe(422)
    expect(noDestination.body.error.code).toBe('ROUNDUP_DESTINATION_REQUIRED')
    await put(t, settingsPath(userId), {destination_account_id: await wallet(t, 'USD')})
    const poor = await t.post(`/v1/roundupsvc/users/${userId}/roundups/transfer`)
    expect(poor.status).toBe(402)
    expect(poor.body.error).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      details: {required: 495, available: 100, walletId: source},
    })
    expect(data(await t.get(`/v1/roundupsvc/users/${userId}/roundups/pending`))).toMatchObject({
      count: 1,
      total: 4.95,
    })
    expect((await t.post('/v1/roundupsvc/users/usr_nope/roundups/transfer')).status).toBe(404)
  })

  test('to a connected bank account, the transfer is an ACH withdrawal that completes on the clock', async () => {
    const userId = await t.user()
    const source = await wallet(t, 'USD', 10_000, userId)
    const link = async (test_account: string) => {
      const token = data(await t.post(`/v1/users/${userId}/accounts/connect`)).link_token
      return data(await t.post(`/v1/users/${userId}/accounts`, {link_token: token, test_account}))
        .id as string
    }
    const good = await link('ach_success')
    await t.post(`/v1/roundupsvc/users/${userId}/roundups/enable`, {
      multiplier: 5,
      destination_account_id: good,
    })
    await roundupOf(userId, '0.01')
    const transfer = data(await t.post(`/v1/roundupsvc/users/${userId}/roundups/transfer`))
    expect(transfer).toMatchObject({destination_type: 'bank_account', status: 'processing', amount: 4.95})
    expect((await balanceOf(t, source)).reserved).toBe(495)
    expect(eventsFor(files.file, 'roundupsvc.transfer.completed', transfer.id)).toEqual([])
    await t.post('/_sandbox/clock/advance', {seconds: 3600})
    const [event] = eventsFor(files.file, 'roundupsvc.transfer.completed', transfer.id)
    expect(event).toMatchObject({status: 'completed', amount: 4.95})
    expect((await balanceOf(t, source)).total).toBe(10_000 - 495)

    // A returned ACH payment fails the transfer, and its round-ups are pending again.
    await put(t, settingsPath(userId), {destination_account_id: await link('ach_returned')})
    await roundupOf(userId, '0.01')
    const returned = data(await t.post(`/v1/roundupsvc/users/${userId}/roundups/transfer`))
    expect(data(await t.get(`/v1/roundupsvc/users/${userId}/roundups/pending`)).count).toBe(0)
    await t.post('/_sandbox/clock/advance', {seconds: 3600})
    const pending = data(await t.get(`/v1/roundupsvc/users/${userId}/roundups/pending`))
    expect(pending).toMatchObject({count: 1, total: 4.95})
    expect(eventsFor(files.file, 'roundupsvc.transfer.completed', returned.id)).toEqual([])
    expect((await balanceOf(t, source)).total).toBe(10_000 - 495)
    const eur = await put(t, settingsPath(userId), {currency: 'EUR'})
    expect(eur.body.error.code).toBe('ROUNDUP_CURRENCY_LOCKED')
    expectLedgerBalanced(files.file)
  })

  test('reading takes roundups:read; changing settings and processing take roundups:write', async () => {
    const user = await t.user()
    const token = (await t.exchange({scopes: ['roundups:read']})).body.access_token as string
    expect((await t.get(settingsPath(user), {auth: token})).status).toBe(200)
    const refused = await t.call('PUT', settingsPath(user), {auth: token, body: {multiplier: 2}})
    expect(refused.status).toBe(403)
    expect(refused.body.error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: {required_scope: 'roundups:write'},
    })
    const transfer = await t.post(`/v1/roundupsvc/users/${user}/roundups/transfer`, undefined, {auth: token})
    expect(transfer.body.error.details.required_scope).toBe('transfers:write')
  })

  test('unknown users: 404 on the user paths, INVALID_USER_ID when processing', async () => {
    for (const res of [
      await t.get('/v1/roundupsvc/users/usr_nope/roundups/pending'),
      await put(t, settingsPath('usr_nope'), {enabled: true}),
      await put(t, '/v1/users/usr_nope/roundup-settings', {
        enabled: true,
        multiplier: 1,
        max_roundup_amount: 5,
      }),
    ]) {
      expect(res.status).toBe(404)
    }
    const res = await process('usr_nope', '4.35')
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({
      code: 'INVALID_USER_ID',
      details: {field: 'user_id', value: 'usr_nope'},
    })
  })

  test('a reset deletes the partner’s round-ups with its users', async () => {
    const own = await start({rateLimit: 'off'})
    try {
      const user = await own.user()
      await own.post(`/v1/roundupsvc/users/${user}/roundups/enable`)
      expect((await own.post('/_sandbox/reset')).status).toBe(200)
      const again = await own.user()
      const id = 'pos_after_reset'
      await own.post(`/v1/roundupsvc/users/${again}/roundups/enable`)
      const res = await own.post('/v1/transactions/process', {
        user_id: again,
        amount: 1.5,
        merchant_name: 'M',
        transaction_id: id,
      })
      expect(data(res)).toMatchObject({duplicate: false, roundup_amount: 0.5})
    } finally {
      await own.close()
    }
  })
})
