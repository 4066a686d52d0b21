import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {
  defaultWalletLimits,
  minorToUsdCents,
  SUPPORTED_CURRENCIES,
  usdCentsToMinor,
} from '../../src/contract/money/currencies.js'
import {WalletListSchema, WalletSchema} from '../../src/contract/wallets.js'
import {query, start, type TestSandbox, tempDir} from './helpers.js'

describe('creating wallets', () => {
  let t: TestSandbox
  const files = tempDir()
  beforeAll(async () => {
    t = await start({data: files.file})
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  test('creates an active wallet with a zero balance and the default USD limits', async () => {
    const userId = await t.user()
    const res = await t.post('/v1/wallets', {userId, currency: 'USD', label: 'Main'})
    expect(res.status).toBe(201)
    const wallet = WalletSchema.parse(res.body.data)
    expect(wallet).toEqual({
      id: expect.stringMatching(/^wal_[0-9a-f]{24}$/),
      userId,
      currency: 'USD',
      balance: {available: 0, pending: 0, reserved: 0, total: 0, currency: 'USD'},
      status: 'active',
      label: 'Main',
      limits: {transaction: 1_000_000, daily: 2_500_000, monthly: 10_000_000},
      createdAt: expect.any(String),
      updatedAt: wallet.createdAt,
    })
  })

  test('records wallet.created with the spec payload in the events table', async () => {
    const userId = await t.user()
    const wallet = (await t.post('/v1/wallets', {userId, currency: 'EUR'})).body.data
    const rows = query(
      files.file,
      'SELECT * FROM events WHERE type = ? AND data LIKE ?',
      'wallet.created',
      `%${wallet.id}%`,
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      partner_id: t.creds.partnerId,
      id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
    })
    expect(JSON.parse(String(rows[0]?.data))).toEqual({
      id: wallet.id,
      userId,
      currency: 'EUR',
      status: 'active',
      createdAt: wallet.createdAt,
    })
  })

  test('puts initialBalance into the available balance', async () => {
    const userId = await t.user()
    const res = await t.post('/v1/wallets', {userId, currency: 'GBP', initialBalance: 12_345})
    expect(res.body.data.balance).toEqual({
      available: 12_345,
      pending: 0,
      reserved: 0,
      total: 12_345,
      currency: 'GBP',
    })
  })

  test('keeps wei amounts exact beyond 2^53', async () => {
    const userId = await t.user()
    const res = await t.post('/v1/wallets', {userId, currency: 'ETH', initialBalance: 5e18})
    expect(res.status).toBe(201)
    const limits = defaultWalletLimits('ETH')
    expect(res.text).toContain(`"available":5000000000000000000`)
    expect(res.text).toContain(`"monthly":${limits.monthly}`)
    expect(res.text).toContain(`"transaction":${limits.transaction}`)
    expect(limits.transaction).toBe(4_000_000_000_000_000_000n) // 10,000 USD at 2,500 USD per ETH
  })

  test('refuses an unsupported currency with INVALID_CURRENCY and the supported list', async () => {
    const userId = await t.user()
    const res = await t.post('/v1/wallets', {userId, currency: 'XYZ'})
    expect(res.status).toBe(400)
    expect(res.body.error).toEqual({
      code: 'INVALID_CURRENCY',
      message: expect.any(String),
      details: {field: 'currency', value: 'XYZ', supported: [...SUPPORTED_CURRENCIES]},
    })
  })

  test('refuses an unknown user with INVALID_USER_ID', async () => {
    const res = await t.post('/v1/wallets', {userId: 'usr_nobody', currency: 'USD'})
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({
      code: 'INVALID_USER_ID',
      details: {field: 'userId', value: 'usr_nobody'},
    })
  })

  test('refuses a second wallet in the same currency with WALLET_EXISTS', async () => {
    const userId = await t.user()
    const first = (await t.post('/v1/wallets', {userId, currency: 'CAD'})).body.data
    const res = await t.post('/v1/wallets', {userId, currency: 'CAD'})
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual({
      code: 'WALLET_EXISTS',
      message: expect.any(String),
      details: {existingWalletId: first.id, userId, currency: 'CAD'},
    })
    expect((await t.post('/v1/wallets', {userId, currency: 'AUD'})).status).toBe(201)
  })

  test('refuses a label over 50 characters, naming the field', async () => {
    const userId = await t.user()
    expect((await t.post('/v1/wallets', {userId, currency: 'USD', label: 'x'.repeat(50)})).status).toBe(201)
    const res = await t.post('/v1/wallets', {userId, currency: 'EUR', label: 'x'.repeat(51)})
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'label'}})
  })

  test('refuses a negative or fractional initialBalance', async () => {
    const userId = await t.user()
    for (const initialBalance of [-1, 1.5, '100']) {
      const res = await t.post('/v1/wallets', {userId, currency: 'USD', initialBalance})
      expect(res.status).toBe(400)
      expect(res.body.error.details.field).toBe('initialBalance')
    }
  })

  test('refuses a body without userId or currency', async () => {
    const res = await t.post('/v1/wallets', {})
    expect(res.status).toBe(400)
    expect(res.body.error.details.issues.map((i: {path: string}) => i.path)).toEqual(['userId', 'currency'])
  })

  test('gets a wallet by id, and 404 for an unknown one', async () => {
    const userId = await t.user()
    const wallet = (await t.post('/v1/wallets', {userId, currency: 'JPY'})).body.data
    expect((await t.get(`/v1/wallets/${wallet.id}`)).body.data).toEqual(wallet)
    const res = await t.get('/v1/wallets/wal_missing')
    expect(res.status).toBe(404)
    expect(res.body.error).toMatchObject({
      code: 'NOT_FOUND',
      details: {resource: 'wallet', id: 'wal_missing'},
    })
  })
})

describe('partners do not see each other', () => {
  test("another partner's user and wallet are unknown", async () => {
    const files = tempDir()
    try {
      const first = await start({data: files.file})
      const userId = await first.user()
      const wallet = (await first.post('/v1/wallets', {userId, currency: 'USD'})).body.data
      await first.close()
      const second = await start({data: files.file, credentials: {partnerId: 'partner_second'}})
      try {
        expect(second.creds.partnerId).toBe('partner_second')
        const res = await second.post('/v1/wallets', {userId, currency: 'EUR'})
        expect(res.status).toBe(400)
        expect(res.body.error.code).toBe('INVALID_USER_ID')
        expect((await second.get(`/v1/wallets/${wallet.id}`)).status).toBe(404)
        expect((await second.get(`/v1/users/${userId}`)).status).toBe(404)
        expect((await second.get('/v1/wallets')).body.data.wallets).toEqual([])
      } finally {
        await second.close()
      }
    } finally {
      files.cleanup()
    }
  })
})

describe('listing wallets', () => {
  let t: TestSandbox
  let alice: string
  let bob: string
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    alice = await t.user({email: 'alice@example.com'})
    bob = await t.user({email: 'bob@example.com'})
    for (const currency of SUPPORTED_CURRENCIES.slice(0, 12))
      await t.post('/v1/wallets', {userId: alice, currency})
    for (const currency of SUPPORTED_CURRENCIES.slice(0, 10))
      await t.post('/v1/wallets', {userId: bob, currency})
  })
  afterAll(() => t.close())

  test('returns 20 wallets by default, oldest first, with a cursor to the rest', async () => {
    const first = await t.get('/v1/wallets')
    expect(first.status).toBe(200)
    const page = WalletListSchema.parse(first.body.data)
    expect(page.wallets).toHaveLength(20)
    expect(page.hasMore).toBe(true)
    expect(page.nextCursor).toEqual(expect.any(String))
    const rest = WalletListSchema.parse(
      (await t.get(`/v1/wallets?cursor=${encodeURIComponent(page.nextCursor ?? '')}`)).body.data,
    )
    expect(rest.wallets).toHaveLength(2)
    expect(rest).toMatchObject({hasMore: false, nextCursor: null})
    const ids = [...page.wallets, ...rest.wallets].map((w) => w.id)
    expect(new Set(ids).size).toBe(22)
  })

  test('filters by user and currency', async () => {
    const bobs = (await t.get(`/v1/wallets?userId=${bob}&limit=100`)).body.data
    expect(bobs.wallets).toHaveLength(10)
    expect(bobs.wallets.every((w: {userId: string}) => w.userId === bob)).toBe(true)
    const usd = (await t.get('/v1/wallets?currency=USD')).body.data
    expect(usd.wallets.map((w: {userId: string}) => w.userId)).toEqual([alice, bob])
    const one = (await t.get(`/v1/wallets?userId=${alice}&currency=EUR`)).body.data
    expect(one.wallets).toHaveLength(1)
    expect(one.wallets[0]).toMatchObject({userId: alice, currency: 'EUR'})
  })

  test('pages through a filtered list with limit and cursor', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const qs = new URLSearchParams({userId: alice, limit: '5', ...(cursor ? {cursor} : {})})
      const page = (await t.get(`/v1/wallets?${qs}`)).body.data
      seen.push(...page.wallets.map((w: {id: string}) => w.id))
      cursor = page.nextCursor
      pages++
    } while (cursor !== null)
    expect(pages).toBe(3)
    expect(seen).toHaveLength(12)
  })

  test('refuses a limit outside 1..100, an unknown cursor, an unknown filter and an unsupported currency', async () => {
    for (const qs of ['limit=0', 'limit=101', 'limit=abc', 'cursor=bogus', 'colour=red']) {
      const res = await t.get(`/v1/wallets?${qs}`)
      expect(res.status, qs).toBe(400)
      expect(res.body.error.code).toBe('VALIDATION_ERROR')
    }
    const res = await t.get('/v1/wallets?currency=XYZ')
    expect(res.body.error).toMatchObject({
      code: 'INVALID_CURRENCY',
      details: {field: 'currency', value: 'XYZ'},
    })
  })
})

describe('sandbox exchange rates', () => {
  test('convert the default limits exactly, rounding down', () => {
    expect(defaultWalletLimits('USD')).toEqual({
      transaction: 1_000_000n,
      daily: 2_500_000n,
      monthly: 10_000_000n,
    })
    expect(defaultWalletLimits('JPY').transaction).toBe(1_538_461n) // 10,000 USD / 0.0065 USD, floored
    expect(defaultWalletLimits('USDC').transaction).toBe(10_000_000_000n)
    expect(defaultWalletLimits('BTC').transaction).toBe(20_000_000n) // 0.2 BTC at 50,000 USD
  })

  test('round a minimum up, so it is never below its USD value', () => {
    expect(usdCentsToMinor(50n, 'USD', 'ceil')).toBe(50n)
    expect(usdCentsToMinor(50n, 'JPY', 'ceil')).toBe(77n) // 76.92… JPY
    expect(usdCentsToMinor(50n, 'JPY', 'floor')).toBe(76n)
    expect(minorToUsdCents(77n, 'JPY')).toBeGreaterThanOrEqual(50n)
    expect(usdCentsToMinor(50n, 'ETH', 'ceil')).toBe(200_000_000_000_000n)
  })
})
