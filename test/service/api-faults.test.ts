import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {type Reply, start, type TestSandbox, tempDir} from './helpers.js'

/** A request whose connection was cut without an answer: fetch rejects instead of answering. */
async function cut(
  t: TestSandbox,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
): Promise<boolean> {
  try {
    await t.call(method, path, {body, headers: key === undefined ? {} : {'idempotency-key': key}})
    return false
  } catch {
    return true
  }
}

const data = (r: Reply) => r.body.data ?? r.body

describe('API faults: what a partner injects into its own requests', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
  })
  afterAll(() => t.close())

  async function fault(body: Record<string, unknown>): Promise<Reply> {
    return t.post('/_sandbox/faults', body, {auth: t.creds.secretKey})
  }
  async function clear(): Promise<void> {
    await t.call('DELETE', '/_sandbox/faults', {auth: t.creds.secretKey})
  }

  test('refuses a route that matches no endpoint, with the closest one, and faults without an effect', async () => {
    const typo = await fault({route: 'POST /v1/transaction', status: 503})
    expect(typo.status).toBe(400)
    expect(typo.body.details).toMatchObject({field: 'route'})
    expect(typo.body.message).toContain('did you mean "POST /v1/transactions"')
    for (const route of [
      'POST /_sandbox/reset',
      'POST /v1/auth/token',
      'FETCH /v1/users',
      'DELETE /v1/users',
    ]) {
      const refused = await fault({route, status: 500})
      expect(refused.status, route).toBe(400)
      expect(refused.body.details.field, route).toBe('route')
    }
    expect((await fault({route: 'POST /v1/users'})).body.details.field).toBe('status')
    expect((await fault({route: 'POST /v1/users', status: 503, drop: 'after'})).body.details.field).toBe(
      'drop',
    )
    expect((await fault({route: 'POST /v1/users', status: 503, rate: 1.5})).status).toBe(400)
    expect((await fault({route: 'POST /v1/users', latency: {minMs: 0, maxMs: 60_001}})).status).toBe(400)
    expect((await fault({route: 'POST /v1/users', drop: 'sideways'})).status).toBe(400)
  })

  test('a status answers in place of the operation, with Retry-After, as many times as asked', async () => {
    const added = await fault({route: 'POST /v1/users', status: 503, times: 2, retryAfterSeconds: 3})
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({kind: 'api', route: 'POST /v1/users', endpoints: ['POST /v1/users']})
    const body = {email: 'a@example.test', first_name: 'A', last_name: 'B'}
    for (let i = 0; i < 2; i++) {
      const hit = await t.post('/v1/users', body)
      expect(hit.status).toBe(503)
      expect(hit.headers.get('retry-after')).toBe('3')
      expect(hit.body.error).toMatchObject({code: 'SERVICE_UNAVAILABLE', details: {injected: true}})
    }
    expect((await t.post('/v1/users', body)).status).toBe(201)
    // The request log marks what was injected, and only that.
    const log = await t.get('/_sandbox/logs?path=/v1/users&limit=100', {auth: t.creds.secretKey})
    const lines = log.body.entries.slice(-3)
    expect(lines.map((e: {status: number; fault?: string}) => [e.status, e.fault])).toEqual([
      [503, 'status 503'],
      [503, 'status 503'],
      [201, undefined],
    ])
    const listed = await t.get('/_sandbox/faults', {auth: t.creds.secretKey})
    expect(listed.body.faults).toEqual([
      expect.objectContaining({id: added.body.id, injected: 2, remaining: 0}),
    ])
    await clear()
  })

  test('`drop before` cuts the connection before anything is done', async () => {
    const user = await t.user()
    await fault({route: 'POST /v1/wallets', drop: 'before', times: 1})
    expect(await cut(t, 'POST', '/v1/wallets', {userId: user, currency: 'USD'}, 'k-before')).toBe(true)
    expect(data(await t.get(`/v1/wallets?userId=${user}`)).wallets).toEqual([])
    // The key stayed free: the retry runs the request for the first time.
    const retry = await t.call('POST', '/v1/wallets', {
      body: {userId: user, currency: 'USD'},
      headers: {'idempotency-key': 'k-before'},
    })
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
    await clear()
  })

  test('`drop after` commits the change and its idempotent answer, then cuts the connection', async () => {
    const user = await t.user()
    await fault({route: 'POST /v1/wallets', drop: 'after', times: 1})
    expect(await cut(t, 'POST', '/v1/wallets', {userId: user, currency: 'EUR'}, 'k-after')).toBe(true)
    const wallets = data(await t.get(`/v1/wallets?userId=${user}`)).wallets
    expect(wallets).toHaveLength(1)
    const retry = await t.call('POST', '/v1/wallets', {
      body: {userId: user, currency: 'EUR'},
      headers: {'idempotency-key': 'k-after'},
    })
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(data(retry).id).toBe(wallets[0].id)
    await clear()
  })

  test('latency holds the request back; a literal id narrows a route to that record', async () => {
    const [slow, fast] = [await t.user(), await t.user()]
    await fault({route: `GET /v1/users/${slow}`, latency: {minMs: 400, maxMs: 400}})
    const began = performance.now()
    expect((await t.get(`/v1/users/${slow}`)).status).toBe(200)
    expect(performance.now() - began).toBeGreaterThanOrEqual(390)
    // The other user's reads are not the fault's: one unhurried read would still be well under 400 ms,
    // but the check is on the fault's count, which does not depend on the machine's speed.
    expect((await t.get(`/v1/users/${fast}`)).status).toBe(200)
    const listed = await t.get('/_sandbox/faults', {auth: t.creds.secretKey})
    expect(listed.body.faults[0]).toMatchObject({injected: 1, endpoints: ['GET /v1/users/{id}']})
    await clear()
  })

  test('a seed gives the same sequence of hits; `*` takes every method', async () => {
    const user = await t.user()
    const run = async () => {
      await fault({route: '* /v1/users/{id}', status: 500, rate: 0.5, seed: 42})
      const statuses: number[] = []
      for (let i = 0; i < 24; i++) statuses.push((await t.get(`/v1/users/${user}`)).status)
      await clear()
      return statuses
    }
    const first = await run()
    expect(first).toContain(500)
    expect(first).toContain(200)
    expect(await run()).toEqual(first)
  })

  test('reset ends every fault, and `DELETE /_sandbox/faults` says how many it removed', async () => {
    await fault({route: 'POST /v1/users', status: 500})
    await fault({route: 'GET /v1/wallets', status: 429})
    await t.post('/_sandbox/reset', undefined, {auth: t.creds.secretKey})
    expect((await t.get('/_sandbox/faults', {auth: t.creds.secretKey})).body.faults).toEqual([])
    expect((await t.user()) as string).toMatch(/^usr_/)
    await fault({route: 'POST /v1/users', status: 500})
    const cleared = await t.call('DELETE', '/_sandbox/faults', {auth: t.creds.secretKey})
    expect(cleared.body).toEqual({cleared: 1})
    const removed = await t.call('DELETE', '/_sandbox/faults/flt_000000000000000000000000', {
      auth: t.creds.secretKey,
    })
    expect(removed.status).toBe(404)
  })

  test('take the secret key or a sandbox:admin token, like the other control routes', async () => {
    const narrowed = (await t.exchange({scopes: ['users:write']})).body.access_token as string
    const refused = await t.post('/_sandbox/faults', {route: 'POST /v1/users', status: 500}, {auth: narrowed})
    expect(refused.status).toBe(403)
    expect((await t.get('/_sandbox/faults', {auth: narrowed})).status).toBe(403)
  })
})

test("one partner's faults never hit another partner's requests", async () => {
  const files = tempDir()
  try {
    const other = await start({data: files.file, credentials: {partnerId: 'partner_other'}, rateLimit: 'off'})
    const otherKey = other.creds.secretKey
    await other.close()
    const t = await start({data: files.file, credentials: {partnerId: 'partner_main'}, rateLimit: 'off'})
    try {
      const added = await t.post('/_sandbox/faults', {route: 'POST /v1/users', status: 503}, {auth: otherKey})
      expect(added.status).toBe(201)
      const body = {email: 'a@example.test', first_name: 'A', last_name: 'B'}
      expect((await t.post('/v1/users', body, {auth: t.creds.secretKey})).status).toBe(201)
      expect((await t.post('/v1/users', body, {auth: otherKey})).status).toBe(503)
      expect((await t.get('/_sandbox/faults', {auth: t.creds.secretKey})).body.faults).toEqual([])
      const removed = await t.call('DELETE', `/_sandbox/faults/${added.body.id}`, {auth: t.creds.secretKey})
      expect(removed.status).toBe(404)
    } finally {
      await t.close()
    }
  } finally {
    files.cleanup()
  }
})
