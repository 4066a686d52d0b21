import {connect} from 'node:net'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {Database} from '../../src/sandbox/database.js'
import {IdempotencyStore} from '../../src/sandbox/idempotency.js'
import {sleep, start, type TestSandbox, tempDir} from './helpers.js'

describe('Idempotency-Key', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start()
  })
  afterAll(() => t.close())

  test('replays the first response for a reused key, creating one wallet', async () => {
    const userId = await t.user()
    const headers = {'idempotency-key': 'create-usd-1'}
    const first = await t.post('/v1/wallets', {userId, currency: 'USD'}, {headers})
    const again = await t.post('/v1/wallets', {currency: 'USD', userId}, {headers})
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    expect(again.headers.get('x-request-id')).toBe(first.body.meta.requestId)
    expect((await t.get(`/v1/wallets?userId=${userId}`)).body.data.wallets).toHaveLength(1)
  })

  test('replays a DELETE and a PATCH too: a retry after a lost answer is not a 404 or a second change', async () => {
    const userId = await t.user()
    const method = (await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_visa'}))
      .body.data.id as string
    const remove = (key: string) =>
      t.call('DELETE', `/v1/users/${userId}/payment-methods/${method}`, {headers: {'idempotency-key': key}})
    const first = await remove('remove-pm-1')
    const retry = await remove('remove-pm-1')
    expect(first.status).toBe(200)
    expect(retry.status).toBe(200)
    expect(retry.text).toBe(first.text)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    // Another key is another request: the method is gone by then.
    expect((await remove('remove-pm-2')).status).toBe(404)

    const wallet = (await t.post('/v1/wallets', {userId, currency: 'USD'})).body.data.id as string
    const patch = (label: string) =>
      t.call('PATCH', `/v1/wallets/${wallet}`, {body: {label}, headers: {'idempotency-key': 'label-1'}})
    expect((await patch('travel')).status).toBe(200)
    expect((await patch('savings')).body.error.code).toBe('DUPLICATE_TRANSACTION')
    expect((await t.get(`/v1/wallets/${wallet}`)).body.data.label).toBe('travel')
  })

  test('refuses the same key for a different request with DUPLICATE_TRANSACTION', async () => {
    const userId = await t.user()
    const headers = {'idempotency-key': 'create-eur-1'}
    expect((await t.post('/v1/wallets', {userId, currency: 'EUR'}, {headers})).status).toBe(201)
    const res = await t.post('/v1/wallets', {userId, currency: 'GBP'}, {headers})
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({
      code: 'DUPLICATE_TRANSACTION',
      details: {idempotencyKey: 'create-eur-1'},
    })
    const otherPath = await t.post(
      '/v1/users',
      {email: 'a@example.com', first_name: 'A', last_name: 'B'},
      {headers},
    )
    expect(otherPath.status).toBe(409)
  })

  test('replays a business error too, but not a validation failure', async () => {
    const userId = await t.user()
    const bad = {'idempotency-key': 'bad-label'}
    expect(
      (await t.post('/v1/wallets', {userId, currency: 'CAD', label: 'x'.repeat(51)}, {headers: bad})).status,
    ).toBe(400)
    // The refused request did not use the key up.
    expect((await t.post('/v1/wallets', {userId, currency: 'CAD'}, {headers: bad})).status).toBe(201)
    const dup = {'idempotency-key': 'dup'}
    const first = await t.post('/v1/wallets', {userId, currency: 'CAD'}, {headers: dup})
    expect(first.status).toBe(409)
    const again = await t.post('/v1/wallets', {userId, currency: 'CAD'}, {headers: dup})
    expect(again.text).toBe(first.text)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })

  test('refuses a malformed key', async () => {
    const userId = await t.user()
    const res = await t.post(
      '/v1/wallets',
      {userId, currency: 'USD'},
      {headers: {'idempotency-key': 'k'.repeat(256)}},
    )
    expect(res.status).toBe(400)
    expect(res.body.error.details.field).toBe('Idempotency-Key')
  })

  test('a retry after a dropped connection creates exactly one wallet', async () => {
    const userId = await t.user()
    const body = JSON.stringify({userId, currency: 'CHF'})
    const {hostname, port} = new URL(t.sb.url)
    // Send the request and hang up before reading the answer, as a client whose connection dropped.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.end(
          [
            'POST /v1/wallets HTTP/1.1',
            `Host: ${hostname}:${port}`,
            `Authorization: Bearer ${t.creds.secretKey}`,
            'Content-Type: application/json',
            'Idempotency-Key: dropped-1',
            `Content-Length: ${Buffer.byteLength(body)}`,
            '',
            body,
          ].join('\r\n'),
        )
        socket.destroy()
        resolve()
      })
      socket.on('error', reject)
    })
    await sleep(100)
    const retry = await t.post(
      '/v1/wallets',
      {userId, currency: 'CHF'},
      {headers: {'idempotency-key': 'dropped-1'}},
    )
    expect(retry.status).toBe(201)
    expect((await t.get(`/v1/wallets?userId=${userId}`)).body.data.wallets).toHaveLength(1)
  })
})

describe('after a restart on the same data file', () => {
  test('replays stored responses, keeps credentials, and accepts earlier tokens', async () => {
    const files = tempDir()
    try {
      const before = await start({data: files.file})
      const token = await before.token()
      const userId = await before.user()
      const first = await before.post(
        '/v1/wallets',
        {userId, currency: 'USD'},
        {headers: {'idempotency-key': 'k-restart'}},
      )
      await before.close()

      const after = await start({data: files.file})
      try {
        expect(after.creds).toEqual(before.creds)
        const again = await after.post(
          '/v1/wallets',
          {userId, currency: 'USD'},
          {
            auth: token,
            headers: {'idempotency-key': 'k-restart'},
          },
        )
        expect(again.status).toBe(201)
        expect(again.text).toBe(first.text)
        expect(again.headers.get('idempotent-replayed')).toBe('true')
        const conflict = await after.post(
          '/v1/wallets',
          {userId, currency: 'EUR'},
          {
            auth: token,
            headers: {'idempotency-key': 'k-restart'},
          },
        )
        expect(conflict.status).toBe(409)
      } finally {
        await after.close()
      }
    } finally {
      files.cleanup()
    }
  })
})

describe('IdempotencyStore', () => {
  test('refuses a key whose first request is still in flight, and frees it on release', () => {
    const database = new Database(':memory:')
    try {
      const store = new IdempotencyStore(database)
      expect(store.begin('p', 'k', 'f1')).toEqual({kind: 'new'})
      expect(store.begin('p', 'k', 'f1')).toEqual({kind: 'in-flight'})
      expect(store.begin('p', 'k', 'f2')).toEqual({kind: 'conflict'})
      expect(store.begin('other', 'k', 'f1')).toEqual({kind: 'new'})
      store.release('p', 'k')
      expect(store.begin('p', 'k', 'f1')).toEqual({kind: 'new'})
      store.complete('p', 'k', 'f1', {status: 201, body: '{}', requestId: 'req_1'})
      expect(store.begin('p', 'k', 'f1')).toEqual({
        kind: 'replay',
        response: {status: 201, body: '{}', requestId: 'req_1'},
      })
    } finally {
      database.close()
    }
  })

  test('forgets a key after 24 hours', () => {
    const database = new Database(':memory:')
    try {
      const store = new IdempotencyStore(database)
      const then = Date.now() - 25 * 3600_000
      store.begin('p', 'k', 'f1', then)
      store.complete('p', 'k', 'f1', {status: 201, body: '{}', requestId: 'req_1'}, then)
      expect(store.begin('p', 'k', 'f2')).toEqual({kind: 'new'})
    } finally {
      database.close()
    }
  })
})
