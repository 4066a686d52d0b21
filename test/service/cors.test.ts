import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {start, type TestSandbox} from './helpers.js'

const ALLOWED = 'http://localhost:3000'
const preflight = (url: string, origin: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  })
const corsHeaders = (res: Response) => [...res.headers.keys()].filter((h) => h.startsWith('access-control-'))

describe('CORS, for the origins named', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({cors: [ALLOWED, 'http://127.0.0.1:5173']})
  })
  afterAll(() => t.close())

  test('a preflight from an allowed origin is 204 with what it may send, for how long', async () => {
    const res = await preflight(`${t.sb.url}/v1/users`, ALLOWED)
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Idempotency-Key, X-Request-Id',
    )
    expect(res.headers.get('access-control-max-age')).toBe('600')
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    expect(res.headers.get('vary')).toMatch(/Origin/)
  })

  test('an answer, a refusal included, names the origin and the headers it may read', async () => {
    const res = await fetch(`${t.sb.url}/v1/users`, {headers: {origin: ALLOWED}})
    expect(res.status).toBe(401)
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(res.headers.get('access-control-expose-headers')).toMatch(
      /X-Request-Id.*X-RateLimit-Remaining.*Retry-After/,
    )
    const ok = await t.call('GET', '/v1/users', {headers: {origin: 'http://127.0.0.1:5173'}})
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173')
  })

  test('any other origin gets no CORS header, nor does the inspector', async () => {
    for (const origin of ['http://localhost:3001', 'null', 'http://evil.example']) {
      const res = await preflight(`${t.sb.url}/v1/users`, origin)
      expect(res.status, origin).not.toBe(204)
      expect(corsHeaders(res), origin).toEqual([])
      expect(corsHeaders(await fetch(`${t.sb.url}/v1/users`, {headers: {origin}})), origin).toEqual([])
    }
    expect(corsHeaders(await preflight(`${t.sb.url}/_sandbox/ui/sign-in`, ALLOWED))).toEqual([])
  })
})

describe('CORS, off by default', () => {
  test('a preflight is 405 with no CORS header, as before', async () => {
    const t = await start()
    try {
      const res = await preflight(`${t.sb.url}/v1/users`, ALLOWED)
      expect(res.status).toBe(405)
      expect(corsHeaders(res)).toEqual([])
    } finally {
      await t.close()
    }
  })

  test('* and other non-origins are refused when the sandbox starts', async () => {
    await expect(start({cors: ['*']})).rejects.toThrow(/not an origin/)
    await expect(start({cors: ['http://localhost:3000/app']})).rejects.toThrow(/write it as/)
  })
})
