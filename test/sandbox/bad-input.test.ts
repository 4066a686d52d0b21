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

  test('an unknown route is 404 NOT_FOUND in the business shape', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing'],
      ['DELETE', '/v1/wallets'],
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
})
