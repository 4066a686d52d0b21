import {request} from 'node:http'
import {connect} from 'node:net'
import {DatabaseSync} from 'node:sqlite'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {openDatabase} from '../../src/sandbox/features.js'
import {IdempotencyStore} from '../../src/sandbox/http/idempotency.js'
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

  test('duplicates sent together, the first still under way, all get its answer, and one wallet is made', async () => {
    const userId = await t.user()
    const headers = {'idempotency-key': 'sent-eight-times'}
    const answers = await Promise.all(
      Array.from({length: 8}, () => t.post('/v1/wallets', {userId, currency: 'USD'}, {headers})),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201))
    expect(new Set(answers.map((a) => a.text)).size).toBe(1)
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(7)
    expect((await t.get(`/v1/wallets?userId=${userId}`)).body.data.wallets).toHaveLength(1)
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

describe('one request, one key, however its URL is spelled', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
  })
  afterAll(() => t.close())

  /** A request with its path sent exactly as given (fetch would normalise some spellings). */
  function send(method: string, path: string, key: string, body: unknown) {
    const {hostname, port} = new URL(t.sb.url)
    const text = JSON.stringify(body)
    return new Promise<{status: number; text: string; replayed: boolean}>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method,
          path,
          headers: {
            authorization: `Bearer ${t.creds.secretKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'idempotency-key': key,
          },
        },
        (res) => {
          let answer = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            answer += chunk
          })
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: answer,
              replayed: res.headers['idempotent-replayed'] === 'true',
            }),
          )
        },
      )
      req.on('error', reject)
      req.end(text)
    })
  }

  /** The same character, percent-encoded: `t` → `%74`. */
  const encoded = (c: string) => `%${c.charCodeAt(0).toString(16)}`

  test('POST /v1/transactions with a trailing slash, percent-encoding or an empty query replays', async () => {
    const userId = await t.user()
    const wallet = (await t.post('/v1/wallets', {userId, currency: 'USD'})).body.data.id as string
    const deposit = {amount: 1000, currency: 'USD', method: 'wire', destinationWalletId: wallet}
    const first = await send('POST', '/v1/transactions', 'deposit-1', deposit)
    expect(first.status).toBe(201)
    for (const path of [
      '/v1/transactions/',
      `/v1/${encoded('t')}ransactions`,
      `/v1/transaction${encoded('s')}`,
      '/v1/transactions?',
    ]) {
      const again = await send('POST', path, 'deposit-1', deposit)
      expect(again.status, path).toBe(201)
      expect(again.replayed, path).toBe(true)
      expect(again.text, path).toBe(first.text)
    }
    // Whatever the spelling, a different body under the key is still another request.
    const other = await send('POST', '/v1/transactions/', 'deposit-1', {...deposit, amount: 2000})
    expect(other.status).toBe(409)
    expect(JSON.parse(other.text).error.code).toBe('DUPLICATE_TRANSACTION')
    const list = await t.get(`/v1/transactions?walletId=${wallet}`)
    expect(list.body.data.transactions).toHaveLength(1)
  })

  test('query parameters in another order, or percent-encoded, are the same query', async () => {
    const userId = await t.user()
    const wallet = (await t.post('/v1/wallets', {userId, currency: 'USD'})).body.data.id as string
    const deposit = {amount: 1000, currency: 'USD', method: 'wire', destinationWalletId: wallet}
    const first = await send('POST', '/v1/transactions?a=1&b=2', 'deposit-2', deposit)
    expect(first.status).toBe(201)
    for (const path of ['/v1/transactions?b=2&a=1', `/v1/transactions/?b=2&a=${encoded('1')}`]) {
      const again = await send('POST', path, 'deposit-2', deposit)
      expect(again.replayed, path).toBe(true)
      expect(again.text, path).toBe(first.text)
    }
    expect((await send('POST', '/v1/transactions?a=1&b=3', 'deposit-2', deposit)).status).toBe(409)
    expect((await t.get(`/v1/transactions?walletId=${wallet}`)).body.data.transactions).toHaveLength(1)
  })

  test('a path parameter percent-encoded, or with a trailing slash, is the same resource', async () => {
    const userId = await t.user()
    const wallet = (await t.post('/v1/wallets', {userId, currency: 'USD'})).body.data.id as string
    const first = await send('PATCH', `/v1/wallets/${wallet}`, 'label-2', {label: 'travel'})
    expect(first.status).toBe(200)
    const spelled = wallet.replace(/_/, encoded('_'))
    for (const path of [
      `/v1/wallets/${wallet}/`,
      `/v1/wallets/${spelled}`,
      `/v1/${encoded('w')}allets/${spelled}/`,
    ]) {
      const again = await send('PATCH', path, 'label-2', {label: 'travel'})
      expect(again.replayed, path).toBe(true)
      expect(again.text, path).toBe(first.text)
    }
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
  const answer = (requestId: string) => ({status: 201, body: `{"n":"${requestId}"}`, requestId})
  const withStore = (
    fn: (store: IdempotencyStore, database: ReturnType<typeof openDatabase>) => void,
    grouped = false,
  ) => {
    const database = openDatabase(':memory:')
    // Under group commit, as in a running sandbox, answers stored are held back until the commit.
    if (grouped) database.groupCommits()
    try {
      fn(new IdempotencyStore(database), database)
    } finally {
      database.close()
    }
  }

  test.each([
    ['', false],
    [', under group commit', true],
  ])('replays an answer to the same request, refuses another, and keeps partners apart%s', (_, grouped) =>
    withStore((store) => {
      expect(store.find('p', 'k', 'f1')).toEqual({kind: 'new'})
      store.complete('p', 'k', 'f1', answer('req_1'))
      expect(store.find('p', 'k', 'f1')).toEqual({kind: 'replay', response: answer('req_1')})
      expect(store.find('p', 'k', 'f2')).toEqual({kind: 'conflict'})
      expect(store.find('other', 'k', 'f1')).toEqual({kind: 'new'})
    }, grouped),
  )

  test.each([
    ['', false],
    [', under group commit', true],
  ])('an answer whose transaction rolled back is no answer%s', (_, grouped) =>
    withStore((store, database) => {
      expect(() =>
        database.transaction(() => {
          store.complete('p', 'lost', 'f1', answer('req_1'))
          throw new Error('the change failed after its answer was stored')
        }),
      ).toThrow('the change failed')
      expect(store.find('p', 'lost', 'f1')).toEqual({kind: 'new'})
      database.transaction(() => store.complete('p', 'lost', 'f1', answer('req_2')))
      expect(store.find('p', 'lost', 'f1')).toEqual({kind: 'replay', response: answer('req_2')})

      database.transaction(() => {
        try {
          database.transaction(() => {
            store.complete('p', 'gone', 'f1', answer('req_3'))
            throw new Error('rolled back')
          })
        } catch {}
        store.complete('p', 'other', 'f1', answer('req_4'))
      })
      expect(store.find('p', 'gone', 'f1')).toEqual({kind: 'new'})
      expect(store.find('p', 'other', 'f1')).toEqual({kind: 'replay', response: answer('req_4')})
    }, grouped),
  )

  test('keeps its answers in the data file, for a new store after a restart', () => {
    const files = tempDir()
    try {
      let database = openDatabase(files.file)
      new IdempotencyStore(database).complete('p', 'k', 'f1', answer('req_1'))
      database.close()
      database = openDatabase(files.file)
      const store = new IdempotencyStore(database)
      expect(store.find('p', 'k', 'f1')).toEqual({kind: 'replay', response: answer('req_1')})
      database.close()
    } finally {
      files.cleanup()
    }
  })

  test('a data file of schema 5 keeps its stored answers, which replay after the upgrade', () => {
    const files = tempDir()
    try {
      openDatabase(files.file).close()
      const old = new DatabaseSync(files.file)
      old.exec(`DROP TABLE idempotency_log;
        CREATE TABLE idempotency_keys (partner_id TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
          state TEXT NOT NULL, status INTEGER, body TEXT, request_id TEXT, created_at INTEGER NOT NULL,
          PRIMARY KEY (partner_id, key)) WITHOUT ROWID;
        UPDATE meta SET value = '5' WHERE key = 'schema_version';`)
      const insert = old.prepare('INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      insert.run('p', 'kept', 'f1', 'done', 201, '{"n":"req_1"}', 'req_1', Date.now() - 1000)
      insert.run('p', 'dead', 'f1', 'in_flight', null, null, null, Date.now() - 500)
      old.close()
      const database = openDatabase(files.file)
      try {
        const store = new IdempotencyStore(database)
        expect(store.find('p', 'kept', 'f1')).toEqual({kind: 'replay', response: answer('req_1')})
        expect(store.find('p', 'dead', 'f1')).toEqual({kind: 'new'})
        expect(
          database.db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'idempotency%'")
            .all(),
        ).toEqual([{name: 'idempotency_log'}])
      } finally {
        database.close()
      }
    } finally {
      files.cleanup()
    }
  })

  test('forgets a key after 24 hours, and purges expired answers in batches', () =>
    withStore((store, database) => {
      const day = 24 * 3600_000
      const now = Date.now()
      const count = () =>
        Number(database.db.prepare('SELECT count(*) AS n FROM idempotency_log').get()?.n ?? Number.NaN)
      store.complete('p', 'old', 'f1', answer('req_1'), now - day - 60_000)
      store.complete('p', 'reused', 'f1', answer('req_2'), now - day - 30_000)
      store.complete('p', 'young', 'f1', answer('req_3'), now - 1000)
      expect(store.find('p', 'old', 'f2', now)).toEqual({kind: 'new'})
      // A key used again after it expired answers anew, and its new answer outlives the purge of the old.
      store.complete('p', 'reused', 'f2', answer('req_4'), now)
      // Written after a younger one (the system clock went back): older than 24 hours all the same.
      store.complete('p', 'late', 'f1', answer('req_5'), now - day - 1000)
      expect(store.purgeExpired(now, 2)).toBe(2)
      expect(store.purgeExpired(now, 2)).toBe(1)
      expect(count()).toBe(2)
      expect(store.find('p', 'reused', 'f2', now)).toEqual({kind: 'replay', response: answer('req_4')})
      expect(store.find('p', 'young', 'f1', now)).toEqual({kind: 'replay', response: answer('req_3')})
      expect(store.purgeExpired(now, 10)).toBe(0)
      expect(store.purgeExpired(now + day + 1, 10)).toBe(2)
      expect(count()).toBe(0)
      expect(store.find('p', 'young', 'f1', now)).toEqual({kind: 'new'})
    }))
})
