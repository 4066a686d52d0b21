import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {independentlyVerify, type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'
import {sleep, start, type TestSandbox} from './helpers.js'

describe('delivery faults of a registration', () => {
  let t: TestSandbox
  let receiver: Receiver
  let secret = ''
  beforeAll(async () => {
    // The retries and the reorder hold a tenth as long: the faults are the same, the waits shorter.
    t = await start({webhookRetries: 'fast', webhookWaitScale: 0.1, rateLimit: 'off'})
    receiver = await startReceiver({secret: () => secret})
  })
  afterAll(async () => {
    await t.close()
    await receiver.close()
  })

  /** Every delivery of the partner settled (none pending), within a generous time. */
  async function settled(): Promise<void> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const pending = await t.get('/v1/events?delivery=pending&limit=1')
      if (pending.body.data.events.length === 0) return
      await sleep(25)
    }
    throw new Error('deliveries still pending')
  }

  test('refuses an unknown registration and a fault without an effect', async () => {
    const unknown = await t.post('/_sandbox/faults/deliveries', {webhookId: 'whk_nope', duplicate: 0.5})
    expect(unknown.status).toBe(404)
    const hook = await t.post('/v1/webhooks', {url: receiver.url, events: ['wallet.created']})
    const none = await t.post('/_sandbox/faults/deliveries', {webhookId: hook.body.data.id, seed: 1})
    expect(none.status).toBe(400)
    await t.call('DELETE', `/v1/webhooks/${hook.body.data.id}`)
  })

  test('duplicates, reorders, delays, fails first attempts and tampers signatures, and the log says so', async () => {
    const hook = await t.post('/v1/webhooks', {url: receiver.url, events: ['wallet.created']})
    secret = hook.body.data.secret
    const fault = await t.post('/_sandbox/faults/deliveries', {
      webhookId: hook.body.data.id,
      duplicate: 0.5,
      reorder: 3,
      delayMs: 200,
      failFirst: 1,
      tamperSignature: 0.3,
      seed: 11,
    })
    expect(fault.status).toBe(201)
    const events: string[] = []
    for (let i = 0; i < 9; i++) {
      const res = await t.post('/_sandbox/trigger', {event: 'wallet.created'}, {auth: t.creds.secretKey})
      events.push(res.body.event.id)
    }
    await settled()
    const verified = receiver.received.filter((r) => r.status === 200)
    const refused = receiver.received.filter((r) => r.status === 401)
    // Each event reached the receiver verified, some more than once (the duplicates): dedupe by id.
    const processed = new Set(verified.map((r) => r.json.id as string))
    expect([...processed].sort()).toEqual([...events].sort())
    expect(verified.length).toBeGreaterThan(processed.size)
    for (const r of refused)
      expect(independentlyVerify(r.body, r.headers['x-service-signature'] as string, secret)).toBe(false)
    // Byte-exact: a tampered delivery carries the very body of the verified ones.
    for (const r of refused) {
      expect(verified.find((v) => v.json.id === r.json.id)?.body.equals(r.body)).toBe(true)
    }

    const notes = {deliveries: [] as string[], attempts: [] as string[]}
    for (const id of events) {
      const detail = (await t.get(`/v1/events/${id}`)).body.data
      expect(detail.deliveries.every((d: {status: string}) => d.status === 'succeeded')).toBe(true)
      const attempts = detail.deliveries.flatMap(
        (d: {attemptLog: {injected: string | null}[]}) => d.attemptLog,
      )
      // The first attempt of each event, and only that one, failed on purpose (counted per event).
      expect(
        attempts.filter((a: {injected: string | null}) => a.injected === 'fail-first 1 of 1'),
      ).toHaveLength(1)
      for (const d of detail.deliveries) {
        notes.deliveries.push(d.injected ?? '')
        for (const a of d.attemptLog) notes.attempts.push(a.injected ?? '')
      }
    }
    expect(notes.deliveries.every((n) => n.includes('delayed 200 ms'))).toBe(true)
    expect(notes.deliveries.some((n) => n.startsWith('duplicate of dlv_'))).toBe(true)
    expect(notes.attempts.filter((n) => n.includes('tampered signature'))).toHaveLength(refused.length)
    expect(notes.attempts.some((n) => n.includes('reordered'))).toBe(true)

    // The fault shows in the list, and goes with its registration.
    const listed = (await t.get('/_sandbox/faults', {auth: t.creds.secretKey})).body.faults
    expect(listed).toEqual([
      expect.objectContaining({kind: 'delivery', webhookId: hook.body.data.id, seed: 11}),
    ])
    await t.call('DELETE', `/v1/webhooks/${hook.body.data.id}`)
    expect((await t.get('/_sandbox/faults', {auth: t.creds.secretKey})).body.faults).toEqual([])
  })
})
