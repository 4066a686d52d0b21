import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {normaliseErrorBody, ResourceErrorSchema} from '../../src/contract/api/error-codes.js'
import {WalletSchema} from '../../src/contract/wallets.js'
import {assertSandboxRecord, start, type TestSandbox} from './helpers.js'

describe('envelope shape (default)', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start()
  })
  afterAll(() => t.close())

  test('wraps a success in success/data/meta, with the request id of the X-Request-Id header', async () => {
    const userId = await t.user()
    const res = await t.post('/v1/wallets', {userId, currency: 'USD'})
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({userId}),
      meta: {requestId: res.headers.get('x-request-id'), timestamp: expect.any(String)},
    })
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/)
    WalletSchema.parse(res.body.data)
  })

  test('answers a business error in the overview shape', async () => {
    const res = await t.post('/v1/wallets', {userId: 'usr_nobody', currency: 'USD'})
    expect(res.body).toEqual({
      success: false,
      error: {code: 'INVALID_USER_ID', message: expect.any(String), details: expect.any(Object)},
      meta: {requestId: res.headers.get('x-request-id'), timestamp: expect.any(String)},
    })
    expect(normaliseErrorBody(res.body)?.code).toBe('INVALID_USER_ID')
  })

  test('keeps auth and sandbox records bare', async () => {
    expect((await t.exchange()).body.access_token).toEqual(expect.any(String))
    expect((await t.get('/_sandbox/health', {auth: null})).body.status).toBe('ok')
  })
})

describe('direct shape', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({responseShape: 'direct'})
  })
  afterAll(() => t.close())

  test('returns the bare resource', async () => {
    const userId = await t.user()
    const res = await t.post('/v1/wallets', {userId, currency: 'USD'})
    expect(res.status).toBe(201)
    expect(WalletSchema.parse(res.body).userId).toBe(userId)
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
    const list = await t.get('/v1/wallets')
    expect(list.body).toMatchObject({
      wallets: [expect.objectContaining({userId})],
      hasMore: false,
      nextCursor: null,
    })
  })

  test('answers a business error in the resource shape with its category', async () => {
    const userId = await t.user()
    await t.post('/v1/wallets', {userId, currency: 'EUR'})
    const res = await t.post('/v1/wallets', {userId, currency: 'EUR'})
    expect(res.status).toBe(409)
    expect(ResourceErrorSchema.parse(res.body)).toEqual({
      error: 'duplicate_wallet',
      message: expect.any(String),
      code: 'WALLET_EXISTS',
      details: expect.objectContaining({userId, currency: 'EUR'}),
    })
    const invalid = await t.post('/v1/wallets', {userId, currency: 'EUR', label: 'x'.repeat(60)})
    expect(invalid.body).toMatchObject({
      error: 'validation_error',
      code: 'VALIDATION_ERROR',
      details: {field: 'label'},
    })
    const missing = await t.get('/v1/wallets/wal_missing')
    expect(missing.body).toMatchObject({error: 'not_found', code: 'NOT_FOUND'})
  })

  test('still answers credential failures in the auth shapes', async () => {
    expect((await t.get('/v1/wallets', {auth: null})).body.error.type).toBe('authentication_error')
    expect((await t.get('/v1/wallets', {auth: 'garbage'})).body).toMatchObject({
      error: {code: 'TOKEN_INVALID'},
      request_id: expect.any(String),
    })
  })
})

describe("the sandbox's own records", () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({responseShape: 'direct'})
  })
  afterAll(() => t.close())

  test('every answer a sandbox test reads is checked whole: a field too many or too few fails it', async () => {
    const userId = await t.user()
    const wallet = (await t.post('/v1/wallets', {userId, currency: 'USD'})).body
    const path = `/v1/wallets/${wallet.id}`
    expect(() => assertSandboxRecord('GET', path, wallet)).not.toThrow()
    expect(() => assertSandboxRecord('GET', path, {...wallet, nickname: 'x'})).toThrow(/nickname/)
    expect(() => assertSandboxRecord('GET', path, {...wallet, balance: {...wallet.balance, x: 1}})).toThrow()
    const {limits: _limits, ...withoutLimits} = wallet
    expect(() => assertSandboxRecord('GET', path, withoutLimits)).toThrow(/limits/)
    const user = (await t.get(`/v1/users/${userId}`)).body
    expect(() => assertSandboxRecord('GET', `/v1/users/${userId}`, {id: user.id})).toThrow(/email/)
  })
})
