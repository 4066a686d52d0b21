import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {EVENT_NAMES} from '../../src/contract/events/envelope.js'
import {verifySignature} from '../../src/contract/webhook-signing/signature.js'
import {recordEvent} from '../../src/sandbox/event-log.js'
import {openDatabase} from '../../src/sandbox/features.js'
import {WebhookStore} from '../../src/sandbox/webhooks/store.js'
import {independentlyVerify, type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'
import {query, sleep, start, type TestSandbox, tempDir} from './helpers.js'

describe('webhooks in the sandbox', () => {
  let sb: TestSandbox
  const receivers: Receiver[] = []
  const receiver = async (opts: Parameters<typeof startReceiver>[0] = {}) => {
    const r = await startReceiver(opts)
    receivers.push(r)
    return r
  }
  const register = async (url: string, events: string[]) => {
    const res = await sb.post('/v1/webhooks', {url, events})
    expect(res.status, res.text).toBe(201)
    return res.body.data as {id: string; secret: string}
  }
  const trigger = async (event: string) => {
    const res = await sb.post('/_sandbox/trigger', {event})
    expect(res.status, res.text).toBe(201)
    return res.body as {
      event: {id: string; event: string}
      synthesized: boolean
      objects: Record<string, string>
    }
  }
  const wallet = async () => {
    const user = await sb.user()
    const res = await sb.post('/v1/wallets', {userId: user, currency: 'USD'})
    return res.body.data.id as string
  }

  beforeAll(async () => {
    sb = await start({webhookRetries: 'fast', rateLimit: 'off'})
  })
  afterEach(async () => {
    // Each test registers its own endpoints; remove them so they do not see the next test's events.
    const list = await sb.get('/v1/webhooks')
    for (const w of list.body.data.webhooks) await sb.call('DELETE', `/v1/webhooks/${w.id}`)
  })
  afterAll(async () => {
    await sb.close()
    for (const r of receivers) await r.close()
  })

  it('registers a URL with a whsec_ secret shown once, lists, gets and deletes it', async () => {
    const created = await register('http://127.0.0.1:9/hooks', ['wallet.created', 'transaction.*'])
    expect(created).toMatchObject({
      id: expect.stringMatching(/^whk_[0-9a-f]{24}$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
      events: ['wallet.created', 'transaction.*'],
      status: 'enabled',
      previousSecretExpiresAt: null,
    })
    const got = await sb.get(`/v1/webhooks/${created.id}`)
    expect(got.body.data.secret).toBeUndefined()
    expect(got.body.data.secretLast4).toBe(created.secret.slice(-4))
    const list = await sb.get('/v1/webhooks')
    expect(list.body.data.webhooks.map((w: {id: string}) => w.id)).toEqual([created.id])
    expect(list.text).not.toContain(created.secret)
    const deleted = await sb.call('DELETE', `/v1/webhooks/${created.id}`)
    expect(deleted.body.data).toEqual({id: created.id, deleted: true})
    expect((await sb.get(`/v1/webhooks/${created.id}`)).status).toBe(404)
  })

  it('refuses unknown event names with a suggestion, and non-http URLs', async () => {
    const typo = await sb.post('/v1/webhooks', {url: 'http://127.0.0.1:9/', events: ['wallet.create']})
    expect(typo.status).toBe(400)
    expect(typo.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: {field: 'events', value: 'wallet.create', suggestion: 'wallet.created'},
    })
    expect(typo.body.error.message).toContain('did you mean "wallet.created"?')
    const ftp = await sb.post('/v1/webhooks', {url: 'ftp://127.0.0.1/', events: ['*']})
    expect(ftp.status).toBe(400)
    expect(ftp.body.error.details.field).toBe('url')
  })

  it('delivers each selected event as a signed POST of {id, event, data, timestamp}, and only those', async () => {
    const all = await receiver()
    const onlyTransactions = await receiver()
    const hook = await register(all.url, ['wallet.created'])
    await register(onlyTransactions.url, ['transaction.*'])
    const walletId = await wallet()
    const [got] = await all.waitFor(1)
    expect(Object.keys(got!.json)).toEqual(['id', 'event', 'data', 'timestamp'])
    expect(got!.json).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      event: 'wallet.created',
      data: {id: walletId, currency: 'USD', status: 'active'},
    })
    expect(got!.headers['content-type']).toBe('application/json')
    expect(got!.headers['x-service-event-id']).toBe(got!.json.id)
    expect(got!.headers['x-service-delivery-attempt']).toBe('1')
    const signature = got!.headers['x-service-signature'] as string
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(independentlyVerify(got!.body, signature, hook.secret)).toBe(true)
    expect(verifySignature(got!.body, signature, hook.secret).ok).toBe(true)
    await sleep(200)
    expect(onlyTransactions.received).toHaveLength(0)
    expect(all.received).toHaveLength(1)
  })

  it('retries a failing receiver on the schedule, re-signing each attempt, until it answers 2xx', async () => {
    const flaky = await receiver({respond: (_r, i) => (i < 2 ? 503 : 200)})
    const hook = await register(flaky.url, ['wallet.created'])
    await wallet()
    const attempts = await flaky.waitFor(3, 10_000)
    expect(attempts.map((a) => a.status)).toEqual([503, 503, 200])
    // The same event and the same bytes each time, with a fresh signature timestamp.
    const ids = new Set(attempts.map((a) => a.json.id))
    expect(ids.size).toBe(1)
    expect(new Set(attempts.map((a) => a.body.toString())).size).toBe(1)
    const ts = attempts.map((a) => Number(/t=(\d+)/.exec(a.headers['x-service-signature'] as string)![1]))
    expect(ts[2]).toBeGreaterThan(ts[0]!)
    for (const a of attempts)
      expect(independentlyVerify(a.body, a.headers['x-service-signature'] as string, hook.secret)).toBe(true)
    expect(attempts.map((a) => a.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3'])
    await sleep(100)
    const event = await sb.get(`/v1/events/${[...ids][0]}`)
    const [delivery] = event.body.data.deliveries
    expect(delivery).toMatchObject({status: 'succeeded', attempts: 3, lastStatus: 200, webhookId: hook.id})
    expect(
      delivery.attemptLog.map((a: {status: number; error: string | null}) => [a.status, a.error]),
    ).toEqual([
      [503, 'HTTP 503'],
      [503, 'HTTP 503'],
      [200, null],
    ])
    expect(delivery.attemptLog[0].responseBody).toContain('status 503')
  })

  it('does not follow redirects: a 3xx is a failed attempt, retried', async () => {
    const target = await receiver()
    const redirecting = await receiver({respond: () => 302})
    await register(redirecting.url, ['wallet.created'])
    await wallet()
    const [first] = await redirecting.waitFor(1)
    await sleep(100)
    const event = await sb.get(`/v1/events/${first!.json.id}`)
    const [delivery] = event.body.data.deliveries
    expect(delivery.status).toBe('pending')
    expect(delivery.attemptLog[0].error).toContain('redirects are not followed')
    expect(target.received).toHaveLength(0)
  })

  it('signs with both secrets while a rotation overlaps, and with the new one alone after', async () => {
    const r = await receiver()
    const hook = await register(r.url, ['wallet.created'])
    const rotated = await sb.post(`/v1/webhooks/${hook.id}/rotate-secret`, {})
    expect(rotated.status, rotated.text).toBe(200)
    const next = rotated.body.data
    expect(next.secret).not.toBe(hook.secret)
    expect(Date.parse(next.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(86_000_000)
    await wallet()
    const [during] = await r.waitFor(1)
    const header = during!.headers['x-service-signature'] as string
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
    expect(independentlyVerify(during!.body, header, next.secret)).toBe(true)
    expect(independentlyVerify(during!.body, header, hook.secret)).toBe(true)

    const retired = await sb.post(`/v1/webhooks/${hook.id}/rotate-secret`, {expiresIn: 0})
    expect(retired.body.data.previousSecretExpiresAt).toBeNull()
    await wallet()
    const [, after] = await r.waitFor(2)
    const afterHeader = after!.headers['x-service-signature'] as string
    expect(afterHeader.split(',')).toHaveLength(2)
    expect(independentlyVerify(after!.body, afterHeader, retired.body.data.secret)).toBe(true)
    expect(independentlyVerify(after!.body, afterHeader, next.secret)).toBe(false)
  })

  it('lists events newest first with delivery counts, and resends one as a new delivery', async () => {
    const r = await receiver()
    const hook = await register(r.url, ['wallet.created'])
    await wallet()
    const [first] = await r.waitFor(1)
    await sleep(100)
    const list = await sb.get('/v1/events?type=wallet.created&limit=1')
    expect(list.body.data.events[0]).toMatchObject({
      id: first!.json.id,
      deliveries: {total: 1, succeeded: 1, pending: 0, failed: 0},
    })
    expect(list.body.data.hasMore).toBe(true)
    const older = await sb.get(`/v1/events?type=wallet.created&cursor=${list.body.data.nextCursor}`)
    expect(older.body.data.events.map((e: {id: string}) => e.id)).not.toContain(first!.json.id)

    const resent = await sb.post(`/v1/events/${first!.json.id}/resend`, {webhookId: hook.id})
    expect(resent.status, resent.text).toBe(201)
    const [again] = resent.body.data.deliveries
    expect(again.resendOf).toBe(first!.headers['x-service-delivery-id'])
    const [, second] = await r.waitFor(2)
    expect(second!.json.id).toBe(first!.json.id)
    expect(second!.body.equals(first!.body)).toBe(true)
    expect(second!.headers['x-service-delivery-id']).toBe(again.id)
    expect((await sb.post('/v1/events/evt_nope/resend', {})).status).toBe(404)
    expect((await sb.post(`/v1/events/${first!.json.id}/resend`, {webhookId: 'whk_nope'})).status).toBe(404)
  })

  it('triggers a realistic event of every name, each delivered once', async () => {
    const r = await receiver()
    const eventIds = async () =>
      (await sb.get('/v1/events?limit=100')).body.data.events.map((e: {id: string}) => e.id) as string[]
    const before = new Set(await eventIds())
    const hook = await register(r.url, ['*'])
    const triggered: string[] = []
    const results: Record<string, Awaited<ReturnType<typeof trigger>>> = {}
    for (const name of EVENT_NAMES) {
      const result = await trigger(name)
      expect(result.event.event).toBe(name)
      expect(result.objects.user).toMatch(/^usr_/)
      // Every trigger runs the real producer of its event.
      expect(result.synthesized, name).toBe(false)
      triggered.push(result.event.id)
      results[name] = result
    }
    type Data = Record<string, unknown>
    const data = (name: string) => (results[name]!.event as unknown as {data: Data}).data
    expect(data('roundupsvc.roundup.processed')).toMatchObject({
      user_id: results['roundupsvc.roundup.processed']!.objects.user,
      amount: 4.35,
      roundup_amount: 0.65,
      status: 'pending',
    })
    expect(data('roundup.processed')).toMatchObject({amount: 65, currency: 'USD'})
    expect(data('roundupsvc.transfer.completed')).toMatchObject({
      id: results['roundupsvc.transfer.completed']!.objects.roundupTransfer,
      destination_account_id: results['roundupsvc.transfer.completed']!.objects.recipientWallet,
      amount: 0.65,
      roundup_count: 1,
      status: 'completed',
    })
    expect(data('bnplsvc.payment.created')).toMatchObject({status: 'pending', paidInstallments: 0})
    expect(data('bnplsvc.payment.completed')).toMatchObject({status: 'completed', paidInstallments: 4})
    expect(data('bnplsvc.payment.failed')).toMatchObject({
      status: 'failed',
      failureReason: expect.stringContaining('instalment 1 of 4 could not be collected: INSUFFICIENT_FUNDS'),
    })
    for (const name of ['bnplsvc.payment.created', 'bnplsvc.payment.completed', 'bnplsvc.payment.failed']) {
      expect(data(name).id, name).toBe(results[name]!.objects.payment)
    }
    // Triggers also record the events of what they create (wallet.created at least).
    const total = (await eventIds()).filter((id) => !before.has(id)).length
    expect(total).toBeGreaterThanOrEqual(2 * EVENT_NAMES.length)
    const received = await r.waitFor(total, 10_000)
    const ids = received.map((x) => x.json.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of triggered) expect(ids).toContain(id)
    for (const x of received) {
      expect(independentlyVerify(x.body, x.headers['x-service-signature'] as string, hook.secret)).toBe(true)
    }
    const wc = received.find((x) => x.json.id === triggered[EVENT_NAMES.indexOf('wallet.created')])
    expect(wc!.json.data).toMatchObject({id: expect.stringMatching(/^wal_/), status: 'active'})
  })

  it('delivers events written to the events table by other code, even without a nudge', async () => {
    const {file, cleanup} = tempDir()
    const own = await start({data: file, webhookRetries: 'fast', rateLimit: 'off'})
    try {
      const r = await receiver()
      const res = await own.post('/v1/webhooks', {url: r.url, events: ['roundup.processed']})
      // Another connection to the data file, as another component of the sandbox would write.
      const other = openDatabase(file)
      const recorded = recordEvent(other, 'roundup.processed', own.creds.partnerId, {amount: 65})
      other.close()
      const [got] = await r.waitFor(1, 5_000)
      expect(got!.json).toMatchObject({id: recorded.id, event: 'roundup.processed', data: {amount: 65}})
      expect(
        independentlyVerify(got!.body, got!.headers['x-service-signature'] as string, res.body.data.secret),
      ).toBe(true)
    } finally {
      await own.close()
      cleanup()
    }
  })

  it('keeps registrations across a reset, and drops the deliveries of the deleted events', async () => {
    const {file, cleanup} = tempDir()
    const own = await start({data: file, webhookRetries: 'fast', rateLimit: 'off'})
    try {
      const r = await receiver()
      await own.post('/v1/webhooks', {url: r.url, events: ['wallet.created']})
      await own.post('/_sandbox/trigger', {event: 'wallet.created'})
      await r.waitFor(1)
      await sleep(100)
      expect(query(file, 'SELECT COUNT(*) AS n FROM webhook_deliveries')[0]!.n).toBe(1)
      expect((await own.post('/_sandbox/reset')).status).toBe(200)
      expect(query(file, 'SELECT COUNT(*) AS n FROM webhook_deliveries')[0]!.n).toBe(0)
      expect(query(file, 'SELECT COUNT(*) AS n FROM webhook_attempts')[0]!.n).toBe(0)
      expect((await own.get('/v1/webhooks')).body.data.webhooks).toHaveLength(1)
    } finally {
      await own.close()
      cleanup()
    }
  })
})

describe('the delivery store', () => {
  it('gives a delivery up after its last scheduled attempt', () => {
    const database = openDatabase(':memory:')
    database.db.exec(
      "INSERT INTO partners VALUES ('p1', 'pk_test_x', 's', 'test_x', 'p1', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')",
    )
    const store = new WebhookStore(database, 'fast')
    store.createEndpoint('p1', 'http://127.0.0.1:9/', ['*'], Date.now())
    recordEvent(database, 'wallet.created', 'p1', {id: 'wal_1'})
    expect(store.fanOut(Date.now())).toBe(1)
    expect(store.fanOut(Date.now())).toBe(0)
    let now = Date.now()
    const states = []
    for (let i = 0; i < 8; i++) {
      const [row] = store.takeDueHttp(now + 10 ** 9, 1, now + 10 ** 9 + 1)
      states.push(
        store.recordAttempt(
          row!.id,
          {
            via: 'http',
            startedAt: now,
            signatureT: Math.floor(now / 1000),
            status: 500,
            durationMs: 1,
            error: 'HTTP 500',
            responseBody: null,
            succeeded: false,
            countsAsFailure: true,
          },
          now,
        ),
      )
      now += 1000
    }
    expect(states).toEqual([...Array(7).fill('pending'), 'failed'])
    expect(store.takeDueHttp(now + 10 ** 10, 10, now)).toHaveLength(0)
    database.close()
  })
})

describe('listen sessions in the store', () => {
  const setup = () => {
    const database = openDatabase(':memory:')
    database.db.exec(
      "INSERT INTO partners VALUES ('p1', 'pk_test_x', 's', 'test_x', 'p1', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')",
    )
    return {database, store: new WebhookStore(database, 'fast')}
  }
  const away = () => false

  it('gives up the backlog that new selectors no longer choose, and keeps the rest', () => {
    const {database, store} = setup()
    const now = Date.now()
    const opened = store.openSession('p1', 'lk_test_key', undefined, away, now)
    expect(JSON.parse(opened.session.events)).toEqual(['*'])
    const wallet = recordEvent(database, 'wallet.created', 'p1', {id: 'wal_1'})
    const card = recordEvent(database, 'walletsvc.card.created', 'p1', {id: 'card_1'})
    expect(store.fanOut(now)).toBe(2)

    const resumed = store.openSession('p1', 'lk_test_key', ['walletsvc.*'], away, now + 1)
    expect(resumed).toMatchObject({resumed: true, pending: 1})
    expect(JSON.parse(resumed.session.events)).toEqual(['walletsvc.*'])
    const [dropped] = store.deliveriesOf(wallet.id)
    expect(dropped).toMatchObject({state: 'failed', attempts: 0})
    expect(dropped!.last_error).toContain('events changed to walletsvc.*')
    expect(store.deliveriesOf(card.id)[0]!.state).toBe('pending')
    expect(store.takeDueForSession(opened.session.id, now + 10, 10, now + 20).map((d) => d.event_id)).toEqual(
      [card.id],
    )
    database.close()
  })

  it('keeps the selectors of a session opened again without events', () => {
    const {database, store} = setup()
    const now = Date.now()
    store.openSession('p1', 'lk_test_key', ['walletsvc.card.created'], away, now)
    const again = store.openSession('p1', 'lk_test_key', undefined, away, now + 1)
    expect(JSON.parse(again.session.events)).toEqual(['walletsvc.card.created'])
    recordEvent(database, 'wallet.created', 'p1', {id: 'wal_1'})
    expect(store.fanOut(now + 2)).toBe(0)
    database.close()
  })
})
