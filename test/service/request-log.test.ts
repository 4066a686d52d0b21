import {lstatSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import Fastify from 'fastify'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import type {RequestLogEntry} from '../../src/contract/request-log.js'
import {openDatabase} from '../../src/sandbox/features.js'
import {addAnswerHooks} from '../../src/sandbox/http/answers.js'
import {Cursors} from '../../src/sandbox/http/pagination.js'
import {recordRequests} from '../../src/sandbox/request-log/recorder.js'
import {RequestLogService} from '../../src/sandbox/request-log/service.js'
import {RequestLogStore, requestLogPath} from '../../src/sandbox/request-log/store.js'
import {start, type TestSandbox, tempDir} from './helpers.js'

interface Page {
  entries: RequestLogEntry[]
  cursor: string
  hasMore: boolean
}

/** The caller's lines of the log, as GET /_sandbox/logs answers them. */
async function logOf(t: TestSandbox, query: Record<string, string> = {}, auth?: string): Promise<Page> {
  const res = await t.get(`/_sandbox/logs?${new URLSearchParams(query)}`, auth === undefined ? {} : {auth})
  expect(res.status, res.text).toBe(200)
  return res.body as Page
}

const line = (partial: Partial<RequestLogEntry>) => expect.objectContaining(partial)

describe('the request log', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
  })
  afterAll(() => t.close())

  test('has a line per request with its partner, status, duration, ids, key, replay and error code, and nothing of its body', async () => {
    const partner = t.creds.partnerId
    const user = {email: 'body-marker-31337@example.test', first_name: 'Quintessa', last_name: 'Marker'}
    const created = await t.post('/v1/users', user, {headers: {'idempotency-key': 'key-user-1'}})
    const replay = await t.post('/v1/users', user, {headers: {'idempotency-key': 'key-user-1'}})
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    const missing = await t.get('/v1/wallets/wal_missing')
    expect(missing.status).toBe(404)

    const {entries} = await logOf(t)
    expect(entries).toEqual([
      // The exchange that got the test its token belongs to the partner it was issued to.
      line({method: 'POST', path: '/v1/auth/token', status: 200, partner, errorCode: null}),
      line({
        method: 'POST',
        path: '/v1/users',
        status: 201,
        partner,
        requestId: created.headers.get('x-request-id')!,
        idempotencyKey: 'key-user-1',
        replayed: false,
      }),
      // A replay is logged with the request id its caller got: the first request's.
      line({
        method: 'POST',
        status: 201,
        requestId: created.headers.get('x-request-id')!,
        idempotencyKey: 'key-user-1',
        replayed: true,
      }),
      line({
        method: 'GET',
        path: '/v1/wallets/wal_missing',
        status: 404,
        errorCode: 'NOT_FOUND',
        requestId: missing.headers.get('x-request-id')!,
        idempotencyKey: null,
      }),
    ])
    for (const e of entries) {
      expect(e.durationMs).toBeGreaterThanOrEqual(0)
      expect(Date.parse(e.time)).not.toBeNaN()
    }
    const text = JSON.stringify(entries)
    for (const secret of [user.email, 'Quintessa', t.creds.apiSecret, t.creds.secretKey, await t.token()])
      expect(text).not.toContain(secret)
    // Reading the log leaves no line of its own.
    const again = await logOf(t)
    expect(again.entries.map((e) => e.path)).not.toContain('/_sandbox/logs')
  })

  test('keeps credentials a caller put in a path or a key out of it, however spelled', async () => {
    const key = t.creds.secretKey
    const body = key.slice('test_'.length)
    const paths = [
      `/v1/users/${key}`,
      `/v1/users/usr_${key}`,
      `/v1/users/test%5F${body}`,
      `/v1/users/test%5f${body}`,
      `/v1/users/te%73t_${body}`,
      `/v1/users/${t.creds.apiSecret}`,
    ]
    for (const path of paths) await t.get(path)
    await t.post(
      '/v1/users',
      {email: 'a@example.test', first_name: 'A', last_name: 'B'},
      {headers: {'idempotency-key': `order_test%5f${body}`}},
    )
    const {entries} = await logOf(t, {limit: '7'})
    expect(entries.map((e) => [e.path, e.idempotencyKey])).toEqual([
      ['/v1/users/test_[REDACTED]', null],
      ['/v1/users/usr_test_[REDACTED]', null],
      ['/v1/users/test_[REDACTED]', null],
      ['/v1/users/test_[REDACTED]', null],
      ['/v1/users/test_[REDACTED]', null],
      ['/v1/users/sk_test_[REDACTED]', null],
      ['/v1/users', 'order_test_[REDACTED]'],
    ])
  })

  test('filters by status class or status, path glob, time and request id', async () => {
    const ok = await t.get('/v1/wallets?limit=1')
    await t.get('/v1/wallets/wal_nope')
    await t.get('/v1/users/usr_nope')
    await t.get('/v1/nowhere')
    const paths = async (query: Record<string, string>) =>
      (await logOf(t, {limit: '100', ...query})).entries.map((e) => `${e.status} ${e.path}`)

    expect((await paths({status: '4xx', path: '/v1/wallets/*'})).slice(-2)).toEqual([
      '404 /v1/wallets/wal_missing',
      '404 /v1/wallets/wal_nope',
    ])
    expect((await paths({status: '404,5xx'})).slice(-3)).toEqual([
      '404 /v1/wallets/wal_nope',
      '404 /v1/users/usr_nope',
      '404 /v1/nowhere',
    ])
    expect(await paths({status: '2xx', path: '/v1/wallets'})).toEqual(['200 /v1/wallets'])
    expect((await paths({path: '/v1/*/usr_*'})).at(-1)).toBe('404 /v1/users/usr_nope')
    expect((await paths({path: '**/nowhere'})).at(-1)).toBe('404 /v1/nowhere')
    expect(await paths({since: new Date(Date.now() + 60_000).toISOString()})).toEqual([])
    const byId = await paths({request: ok.headers.get('x-request-id')!})
    expect(byId).toEqual(['200 /v1/wallets'])

    const refused = await t.get('/_sandbox/logs?status=6xx')
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'status'}})
  })

  test('a cursor reads on from where the last read ended, and one it did not issue is refused', async () => {
    const {cursor} = await logOf(t, {limit: '1'})
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await t.get(`/v1/users/usr_${i}`)).headers.get('x-request-id')!)
    const first = await logOf(t, {cursor, limit: '2'})
    expect(first.entries.map((e) => e.requestId)).toEqual(ids.slice(0, 2))
    expect(first.hasMore).toBe(true)
    const second = await logOf(t, {cursor: first.cursor, limit: '2'})
    expect(second.entries.map((e) => e.requestId)).toEqual(ids.slice(2))
    expect(second.hasMore).toBe(false)
    expect((await logOf(t, {cursor: second.cursor})).entries).toEqual([])

    const forged = await t.get(
      `/_sandbox/logs?cursor=${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`,
    )
    expect(forged.status).toBe(400)
    expect(forged.body).toMatchObject({details: {field: 'cursor'}})
  })

  test('answers only the secret key or a token with sandbox:admin', async () => {
    expect((await t.get('/_sandbox/logs', {auth: t.creds.secretKey})).status).toBe(200)
    const narrow = (await t.exchange({scopes: ['users:read']})).body.access_token as string
    expect((await t.get('/_sandbox/logs', {auth: narrow})).status).toBe(403)
    expect((await t.get('/_sandbox/logs', {auth: null})).status).toBe(401)
  })
})

describe('who sees which lines', () => {
  test('a partner its own; the partner the sandbox was started for also those no credential admitted', async () => {
    const files = tempDir()
    try {
      const first = await start({data: files.file, rateLimit: 'off'})
      const a = first.creds
      await first.close()
      // The same data file, started for a second partner: both partners' credentials work.
      const t = await start({
        data: files.file,
        rateLimit: 'off',
        credentials: {partnerId: 'partner_operator'},
      })
      try {
        const ofA = await t.get('/v1/users/usr_of_a', {auth: a.secretKey})
        const ofB = await t.get('/v1/users/usr_of_b')
        await t.get('/_sandbox/health', {auth: null})
        await t.get('/v1/users/usr_anyone', {auth: 'test_not_a_key_of_anyone_0123456789'})
        await t.post(
          '/v1/auth/token',
          {api_key: a.apiKey, api_secret: 'sk_test_wrong', partner_id: a.partnerId},
          {auth: null},
        )

        const seenByA = (await logOf(t, {limit: '100'}, a.secretKey)).entries
        expect(seenByA.map((e) => e.requestId)).toEqual([ofA.headers.get('x-request-id')])
        expect(seenByA[0]?.partner).toBe(a.partnerId)

        const seenByB = (await logOf(t, {limit: '100'})).entries
        expect(seenByB.map((e) => `${e.partner} ${e.status} ${e.path}`)).toEqual([
          'partner_operator 200 /v1/auth/token',
          `partner_operator 404 /v1/users/usr_of_b`,
          'null 200 /_sandbox/health',
          'null 401 /v1/users/usr_anyone',
          'null 401 /v1/auth/token',
        ])
        expect(ofB.status).toBe(404)
        // Nor does a request id lead to another partner's line.
        const lookup = await logOf(t, {request: ofA.headers.get('x-request-id')!})
        expect(lookup.entries).toEqual([])
      } finally {
        await t.close()
      }
    } finally {
      files.cleanup()
    }
  })
})

describe('reading the log', () => {
  test("spends none of the partner's rate limit", async () => {
    const t = await start({rateLimit: 'spec'})
    try {
      const before = await t.get('/v1/wallets')
      expect(before.headers.get('x-ratelimit-remaining')).not.toBeNull()
      // More reads than the partner's 100 a minute: none is refused, none says what is left.
      for (let i = 0; i < 120; i++) {
        const read = await t.get('/_sandbox/logs?limit=1')
        expect(read.status).toBe(200)
        expect(read.headers.get('x-ratelimit-remaining')).toBeNull()
      }
      const after = await t.get('/v1/wallets')
      expect(after.status).toBe(200)
      expect(Number(after.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(90)
    } finally {
      await t.close()
    }
  })
})

describe('the log file beside the data file', () => {
  test('is 0600, outlives a restart, and goes on after its last line', async () => {
    const files = tempDir()
    try {
      const first = await start({data: files.file, rateLimit: 'off'})
      const old = (await first.get('/v1/users/usr_before')).headers.get('x-request-id')!
      await first.close()
      const path = requestLogPath(files.file)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      const t = await start({data: files.file, rateLimit: 'off'})
      try {
        await t.get('/v1/users/usr_after')
        const found = await logOf(t, {request: old})
        expect(found.entries).toEqual([line({path: '/v1/users/usr_before', status: 404})])
        const {entries} = await logOf(t, {limit: '100'})
        expect(entries.map((e) => e.path)).toEqual([
          '/v1/auth/token',
          '/v1/users/usr_before',
          '/v1/auth/token',
          '/v1/users/usr_after',
        ])
        await t.close()
        const seqs = readFileSync(path, 'utf8')
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as {seq: number}).seq)
        expect(seqs).toEqual([1, 2, 3, 4])
      } finally {
        await t.close()
      }
    } finally {
      files.cleanup()
    }
  })
})

const entry = (i: number): RequestLogEntry => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  partner: 'partner_a',
  method: 'GET',
  path: `/v1/users/usr_${String(i).padStart(4, '0')}`,
  status: 200,
  durationMs: 1,
  requestId: `req_${String(i).padStart(24, '0')}`,
  idempotencyKey: null,
  replayed: false,
  errorCode: null,
})

describe('its bounds', () => {
  test('a log file is rotated at its bound, one previous generation kept', () => {
    const files = tempDir()
    try {
      const path = requestLogPath(files.file)
      const store = new RequestLogStore(path, {fileBytes: 4_000, ringEntries: 5})
      for (let i = 1; i <= 200; i++) {
        store.append(entry(i))
        if (i % 7 === 0) store.flush()
      }
      store.flush()
      expect(statSync(path).size).toBeLessThanOrEqual(4_000)
      expect(statSync(`${path}.1`).size).toBeLessThanOrEqual(4_000)
      // What the files hold is the newest lines, without a gap; the oldest are gone.
      const kept = [...store.after(0)].map((e) => e.seq)
      expect(kept.at(-1)).toBe(200)
      expect(kept.length).toBeGreaterThan(10)
      expect(kept.length).toBeLessThan(200)
      expect(kept).toEqual(kept.map((_, i) => (kept[0] as number) + i))
      // The newest lines that match, from memory or the files alike.
      expect(store.latest(3, (e) => e.seq % 2 === 0).map((e) => e.seq)).toEqual([196, 198, 200])
      expect(store.latest(2, (e) => e.seq === kept[0]).map((e) => e.seq)).toEqual([kept[0]])
      store.close()
    } finally {
      files.cleanup()
    }
  })

  test('a log in memory keeps its newest lines', () => {
    const store = new RequestLogStore(undefined, {fileBytes: 0, ringEntries: 10})
    for (let i = 1; i <= 25; i++) store.append(entry(i))
    expect([...store.after(0)].map((e) => e.seq)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25])
    expect([...store.after(23)].map((e) => e.seq)).toEqual([24, 25])
  })

  test('a link planted at its name is replaced, its target left as it was; a line cut short is skipped', () => {
    const files = tempDir()
    try {
      const path = requestLogPath(files.file)
      const target = join(files.dir, 'victim.txt')
      writeFileSync(target, 'keep me\n')
      symlinkSync(target, path)
      let store = new RequestLogStore(path, {fileBytes: 100_000, ringEntries: 5})
      store.append(entry(1))
      store.close()
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      expect(lstatSync(path).isSymbolicLink()).toBe(false)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      // A crash in the middle of a line.
      writeFileSync(path, `${readFileSync(path, 'utf8')}{"seq":2,"time":"2026-`, {flag: 'w'})
      store = new RequestLogStore(path, {fileBytes: 100_000, ringEntries: 5})
      store.append(entry(3))
      store.close()
      store = new RequestLogStore(path, {fileBytes: 100_000, ringEntries: 5})
      expect([...store.after(0)].map((e) => e.seq)).toEqual([1, 2])
      store.close()
    } finally {
      files.cleanup()
    }
  })
})

describe('an injected fault', () => {
  test('is logged as the fault that shaped the answer', async () => {
    const database = openDatabase(':memory:')
    const store = new RequestLogStore(undefined, {fileBytes: 0, ringEntries: 10})
    const app = Fastify()
    addAnswerHooks(app, () => undefined, [
      recordRequests(new RequestLogService(store, new Cursors(database), () => false)),
    ])
    app.get('/v1/wallets', async (request, reply) => {
      request.injectedFault = 'status 503'
      return reply.code(503).send('{"error":"api_error","code":"SERVICE_UNAVAILABLE","message":"injected"}')
    })
    try {
      await app.inject({method: 'GET', url: '/v1/wallets'})
      await app.inject({method: 'GET', url: '/v1/other'})
      expect(store.latest(10, () => true)).toEqual([
        line({status: 503, fault: 'status 503', errorCode: 'SERVICE_UNAVAILABLE'}),
        expect.not.objectContaining({fault: expect.anything()}),
      ])
    } finally {
      await app.close()
      database.close()
    }
  })
})
