import {once} from 'node:events'
import {DatabaseSync} from 'node:sqlite'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {LISTEN_CLOSE} from '../../src/contract/webhooks.js'
import {recordEvent} from '../../src/sandbox/event-log.js'
import {openDatabase} from '../../src/sandbox/features.js'
import {LISTEN_SESSION_CAP, WebhookStore} from '../../src/sandbox/webhooks/store.js'
import {start, type TestSandbox, tempDir} from './helpers.js'

describe('listen sessions over HTTP', () => {
  let sb: TestSandbox
  const open = (listenerKey: string) => sb.post('/v1/webhooks/listen-sessions', {listenerKey})
  const end = (id: string) => sb.call('DELETE', `/v1/webhooks/listen-sessions/${id}`)

  beforeAll(async () => {
    sb = await start({rateLimit: 'off'})
  })
  afterAll(() => sb.close())

  it('opens at most 100 sessions per partner: the 101st answers 429 LISTEN_SESSION_LIMIT until one ends', async () => {
    const ids: string[] = []
    for (let i = 0; i < LISTEN_SESSION_CAP; i++) {
      const res = await open(`cap-key-${i}`)
      expect(res.status, res.text).toBe(200)
      ids.push(res.body.data.id)
    }
    const refused = await open('cap-key-extra')
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({
      success: false,
      error: {code: 'LISTEN_SESSION_LIMIT', details: {limit: 100, open: 100}},
      meta: {requestId: expect.any(String)},
    })
    expect(refused.body.error.message).toMatch(/DELETE \/v1\/webhooks\/listen-sessions/)
    // Until the oldest unconnected session lapses: a ticket's life.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60)

    // An open session opened again takes no new place.
    expect((await open('cap-key-0')).body.data).toMatchObject({id: ids[0], resumed: true})

    const ended = await end(ids[1]!)
    expect(ended.status, ended.text).toBe(200)
    expect(ended.body.data).toEqual({id: ids[1], deleted: true})
    expect((await open('cap-key-extra')).status).toBe(200)
    expect((await open('cap-key-another')).status).toBe(429)

    // An ended session comes back afresh, with its secret, when it has room again.
    await end(ids[2]!)
    const back = await open('cap-key-1')
    expect(back.body.data).toMatchObject({id: ids[1], resumed: false, pending: 0})
    for (const id of ids) await end(id)
  })

  it('refuses to end a session that is not there', async () => {
    const res = await end('lsn_000000000000000000000000')
    expect(res.status).toBe(404)
    expect(res.body.error).toMatchObject({code: 'NOT_FOUND', details: {resource: 'listen_session'}})
  })

  it('gives up what waits for an ended session and closes its listener with 4410', async () => {
    const session = (await open('ended-with-listener')).body.data
    const ws = new WebSocket(
      `${sb.sb.url.replace('http', 'ws')}${session.socketPath}?ticket=${session.ticket}`,
    )
    const frames: {type: string}[] = []
    ws.onmessage = (m) => frames.push(JSON.parse(String(m.data)))
    await once(ws, 'open')
    await expect.poll(() => frames.some((f) => f.type === 'ready')).toBe(true)
    const closed = new Promise<number>((resolve) => {
      ws.onclose = (e) => resolve(e.code)
    })
    expect((await end(session.id)).status).toBe(200)
    expect(await closed).toBe(LISTEN_CLOSE.ended)

    // A trigger after the end makes no delivery to it.
    const trigger = await sb.post('/_sandbox/trigger', {event: 'wallet.created'})
    const event = await sb.get(`/v1/events/${trigger.body.event.id}`)
    expect(
      event.body.data.deliveries.filter((d: {listenSessionId: string}) => d.listenSessionId === session.id),
    ).toEqual([])

    const again = (await open('ended-with-listener')).body.data
    expect(again).toMatchObject({id: session.id, secret: session.secret, resumed: false})
  })
})

describe('listen sessions in the store: who collects', () => {
  const setup = () => {
    const database = openDatabase(':memory:')
    database.db.exec(
      "INSERT INTO partners VALUES ('p1', 'pk_test_x', 's', 'test_x', 'p1', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')",
    )
    return {database, store: new WebhookStore(database, 'fast')}
  }
  const away = () => false
  const t0 = Date.parse('2026-01-01T00:00:00Z')

  it('collects for a session no listener connected to only within a minute of opening it', () => {
    const {database, store} = setup()
    const opened = store.openSession('p1', 'lk_never_connected', undefined, away, t0)
    recordEvent(database, 'wallet.created', 'p1', {id: 'wal_1'})
    expect(store.fanOut(t0 + 30_000)).toBe(1)
    recordEvent(database, 'wallet.created', 'p1', {id: 'wal_2'})
    expect(store.fanOut(t0 + 61_000)).toBe(0)
    const again = store.openSession('p1', 'lk_never_connected', undefined, away, t0 + 62_000)
    expect(again).toMatchObject({resumed: false, pending: 0})
    expect(again.session.id).toBe(opened.session.id)
    database.close()
  })

  it('collects for a session whose listener connected for the whole replay window', () => {
    const {database, store} = setup()
    const opened = store.openSession('p1', 'lk_connected', undefined, away, t0)
    store.connectSession(opened.session.id, t0 + 1_000)
    recordEvent(database, 'wallet.created', 'p1', {id: 'wal_1'})
    expect(store.fanOut(t0 + 59 * 60_000)).toBe(1)
    recordEvent(database, 'wallet.created', 'p1', {id: 'wal_2'})
    expect(store.fanOut(t0 + 61 * 60_000 + 1_000)).toBe(0)
    database.close()
  })

  it('counts only open sessions against the cap', () => {
    const {database, store} = setup()
    for (let i = 0; i < LISTEN_SESSION_CAP; i++) store.openSession('p1', `lk_key_${i}`, undefined, away, t0)
    expect(() => store.openSession('p1', 'lk_key_extra', undefined, away, t0 + 1_000)).toThrow(
      /listen sessions are open/,
    )
    // A minute on, none of them ever connected: all have lapsed.
    expect(store.openSession('p1', 'lk_key_extra', undefined, away, t0 + 61_000).resumed).toBe(false)
    database.close()
  })

  it('adds its new columns to a data file written before them', () => {
    const files = tempDir()
    try {
      // Schema 2: sessions had no connected_at nor ended_at.
      const raw = new DatabaseSync(files.file)
      raw.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO meta VALUES ('schema_version', '2');
        CREATE TABLE webhook_listen_sessions (
        id TEXT PRIMARY KEY, partner_id TEXT NOT NULL, listener_key TEXT NOT NULL, secret TEXT NOT NULL,
        events TEXT NOT NULL, from_event_seq INTEGER NOT NULL, last_seen_at INTEGER NOT NULL, created_at TEXT NOT NULL,
        UNIQUE (partner_id, listener_key)) WITHOUT ROWID`)
      raw.exec(
        `INSERT INTO webhook_listen_sessions VALUES ('lsn_old', 'p1', 'lk_old_key', 'whsec_x', '["*"]', 0, ${t0}, '2026-01-01T00:00:00.000Z')`,
      )
      raw.close()
      const database = openDatabase(files.file)
      const store = new WebhookStore(database, 'fast')
      expect(store.session('lsn_old')).toMatchObject({connected_at: null, ended_at: null})
      database.close()
    } finally {
      files.cleanup()
    }
  })
})
