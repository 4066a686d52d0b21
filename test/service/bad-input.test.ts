import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {start, type TestSandbox} from './helpers.js'

describe('bad input never gives a 500', () => {
  let t: TestSandbox
  let userId: string
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    userId = await t.user()
  })
  afterAll(() => t.close())

  test('malformed JSON is a 400 VALIDATION_ERROR in the business shape', async () => {
    const res = await t.call('POST', '/v1/wallets', {raw: '{"userId": '})
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({
      success: false,
      error: {code: 'VALIDATION_ERROR'},
      meta: expect.any(Object),
    })
    expect(res.body.error.message).toMatch(/Malformed JSON/)
    expect(res.text).not.toMatch(/at .*\.(js|ts):\d+/)
  })

  test('unknown fields and wrong types are listed in details.issues', async () => {
    const res = await t.post('/v1/wallets', {userId, currency: 7, colour: 'red'})
    expect(res.status).toBe(400)
    expect(res.body.error.details).toEqual({
      field: 'currency',
      issues: [
        {path: 'currency', code: 'invalid_type', message: expect.stringContaining('expected string')},
        {path: 'colour', code: 'unrecognized_keys', message: 'Unknown field'},
      ],
    })
    expect(res.body.error.message).toContain('colour')
  })

  test('a body that is not an object is refused', async () => {
    for (const raw of ['[]', 'null', '42', '"text"', 'true']) {
      const res = await t.call('POST', '/v1/wallets', {raw})
      expect(res.status, raw).toBe(400)
      expect(res.body.error.code).toBe('VALIDATION_ERROR')
    }
  })

  test('a missing body is refused', async () => {
    const res = await t.call('POST', '/v1/wallets', {})
    expect(res.status).toBe(400)
    expect(res.body.error.message).toMatch(/required/)
  })

  test('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.post('/v1/wallets', {userId, currency: 'USD', label: 'x'.repeat(1024 * 1024)})
    expect(res.status).toBe(413)
    expect(res.body.error).toMatchObject({code: 'PAYLOAD_TOO_LARGE', details: {limit: 1048576}})
  })

  test('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await t.call('POST', '/v1/wallets', {raw: 'userId=1', headers: {'content-type': type}})
      expect(res.status, type).toBe(415)
      expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    }
  })

  test('a JSON body sent as a form (curl -d without a content type) is read as JSON', async () => {
    const res = await t.call('POST', '/v1/wallets', {
      raw: JSON.stringify({userId, currency: 'AVAX'}),
      headers: {'content-type': 'application/x-www-form-urlencoded'},
    })
    expect(res.status).toBe(201)
  })

  test('JSON with a charset parameter is accepted', async () => {
    const res = await t.call('POST', '/v1/wallets', {
      raw: JSON.stringify({userId, currency: 'SOL'}),
      headers: {'content-type': 'application/json; charset=utf-8'},
    })
    expect(res.status).toBe(201)
  })

  test('an unknown route is 404 NOT_FOUND in the business shape (a known path with another method is 405)', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing'],
      ['GET', '/v2/wallets'],
      ['POST', '/v1/unknown'],
    ] as const) {
      const res = await t.call(method, path, {raw: method === 'POST' ? '{bad' : undefined})
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.body.error).toMatchObject({code: 'NOT_FOUND', details: {resource: 'route'}})
    }
  })

  test('authentication comes before the body is read', async () => {
    for (const raw of ['{bad', 'x'.repeat(2 * 1024 * 1024)]) {
      const res = await t.call('POST', '/v1/wallets', {raw, auth: null})
      expect(res.status).toBe(401)
      expect(res.body.error.code).toBe('missing_authorization')
    }
    const res = await t.call('POST', '/v1/wallets', {
      raw: 'x',
      auth: null,
      headers: {'content-type': 'text/plain'},
    })
    expect(res.status).toBe(401)
  })

  test('token exchange answers bad bodies in the Variant A auth shape', async () => {
    const res = await t.call('POST', '/v1/auth/token', {raw: '{bad', auth: null})
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({error: {code: 'VALIDATION_ERROR'}, request_id: expect.any(String)})
  })

  test('a body packed with huge number literals costs about what any body of its size costs', async () => {
    // Each number of these bodies once became an exact 400-digit (or million-digit) integer, and a
    // megabyte of them held the sandbox for over a second. Compared with a body of small numbers of
    // the same size, so that the bound does not depend on the machine's speed; generous, since a
    // shared machine's load comes and goes between the two.
    const ofSize = (literal: string) =>
      `[${Array(Math.floor(1_000_000 / (literal.length + 1)))
        .fill(literal)
        .join(',')}]`
    const median = async (raw: string) => {
      const times: number[] = []
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now()
        const res = await t.call('POST', '/v1/users', {raw})
        times.push(performance.now() - t0)
        expect(res.status).toBe(400)
      }
      return times.sort((a, b) => a - b)[1]!
    }
    const plain = await median(ofSize('1'))
    for (const raw of [ofSize('1e400'), ofSize('1e80'), `{"amount":${'7'.repeat(900_000)}}`]) {
      expect(await median(raw)).toBeLessThan(6 * plain + 250)
    }
  })

  test('an amount literal too long to read exactly is refused as out of range', async () => {
    const wallet = await t.post('/v1/wallets', {userId, currency: 'EUR'})
    for (const raw of ['1e400', `1${'0'.repeat(100)}`]) {
      const res = await t.call('POST', '/v1/transactions', {
        raw: `{"amount":${raw},"currency":"EUR","method":"card","destinationWalletId":"${wallet.body.data.id}"}`,
      })
      expect(res.status).toBe(400)
      expect(res.body.error.details.issues[0]).toMatchObject({
        path: 'amount',
        message: expect.stringMatching(/^Out of range/),
      })
    }
  })

  test('an integer of 1e16 or more in a major-unit field is refused as out of range, not as a bigint', async () => {
    const user = await t.user({email: 'major@example.com'})
    for (const value of ['10000000000000000', '1e16', '123456789012345678901234567890', '1e400']) {
      const res = await t.call('PUT', `/v1/users/${user}/roundup-settings`, {
        raw: `{"enabled":true,"multiplier":1,"max_roundup_amount":${value}}`,
      })
      expect(res.status).toBe(400)
      expect(res.body.error.message).not.toMatch(/bigint/)
      expect(res.body.error.details.issues).toEqual([
        {
          path: 'max_roundup_amount',
          code: 'too_big',
          message: expect.stringMatching(/^Out of range: at most 9007199254740991/),
        },
      ])
      const processed = await t.call('POST', '/v1/transactions/process', {
        raw: `{"user_id":"${user}","amount":${value},"merchant_name":"Shop","transaction_id":"t1"}`,
      })
      expect(processed.status).toBe(400)
      expect(processed.body.error.details.issues[0].message).toMatch(/^Out of range/)
    }
  })
})
