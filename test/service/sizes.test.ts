import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {METADATA_LIMITS} from '../../src/contract/fields.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'
import {createPartner, start, type TestSandbox} from './helpers.js'
import {createTx, data, wallet} from './money-helpers.js'

const deposit = (walletId: string, metadata: unknown) => ({
  amount: 10_000,
  currency: 'USD',
  method: 'card',
  paymentMethodId: 'pm_card_visa',
  destinationWalletId: walletId,
  metadata,
})

describe('what a caller sends is bounded, so every answer is', () => {
  let t: TestSandbox
  let walletId: string
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    walletId = await wallet(t, 'USD')
  })
  afterAll(() => t.close())

  it('takes metadata up to 50 keys of 40 characters, values of 500 and 8 KiB in all', async () => {
    const keys = (n: number, value = 'v') =>
      Object.fromEntries(Array.from({length: n}, (_, i) => [`key_${i}`, value]))
    const refused = {
      'too many keys': keys(METADATA_LIMITS.keys + 1),
      'a long key': {['k'.repeat(41)]: 'v'},
      'an empty key': {'': 'v'},
      'a long value': {note: 'x'.repeat(501)},
      'too much in all': keys(17, 'x'.repeat(500)),
      'a megabyte': {blob: 'x'.repeat(1_000_000)},
      'a value that is not text': {n: 1},
    }
    for (const [what, metadata] of Object.entries(refused)) {
      const res = await createTx(t, deposit(walletId, metadata))
      expect([400, 413], what).toContain(res.status)
      expect(res.body.error?.code ?? res.body.code, what).toMatch(/VALIDATION_ERROR|PAYLOAD_TOO_LARGE/)
    }
    const accepted = [
      keys(METADATA_LIMITS.keys),
      {['k'.repeat(40)]: 'x'.repeat(500)},
      keys(14, 'x'.repeat(500)),
    ]
    for (const metadata of accepted) {
      const res = await createTx(t, deposit(walletId, metadata))
      expect(res.status, res.text).toBe(201)
      expect(data(res).metadata).toEqual(metadata)
    }
  })

  it('keeps a page of 100 transactions with the largest metadata under a megabyte', async () => {
    const biggest = Object.fromEntries(
      Array.from({length: 14}, (_, i) => [`k${String(i).padStart(39, '0')}`, 'x'.repeat(500)]),
    )
    const own = await wallet(t, 'USD')
    for (let i = 0; i < 100; i++) expect((await createTx(t, deposit(own, biggest))).status).toBe(201)
    const page = await t.get(`/v1/transactions?walletId=${own}&limit=100`)
    expect(data(page).transactions).toHaveLength(100)
    expect(page.text.length).toBeLessThan(1_000_000)
  })

  it('refuses strings and lists beyond their bounds on every endpoint that stores them', async () => {
    const user = await t.user()
    const long = (n: number) => 'a'.repeat(n)
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/users', {email: `${long(250)}@example.test`, first_name: 'A', last_name: 'B'}],
      ['POST', '/v1/wallets', {userId: long(256), currency: 'USD'}],
      ['POST', '/v1/webhooks', {url: `http://127.0.0.1:9/${long(2100)}`, events: ['*']}],
      ['POST', '/v1/webhooks', {url: 'http://127.0.0.1:9/', events: Array(101).fill('wallet.created')}],
      [
        'POST',
        '/v1/transactions/process',
        {user_id: user, amount: 1.5, merchant_name: long(201), transaction_id: 't1'},
      ],
      [
        'POST',
        '/v1/transactions/process',
        {user_id: user, amount: 1.5, merchant_name: 'M', transaction_id: long(256)},
      ],
      ['POST', '/v1/webhooks/listen-sessions', {listenerKey: 'listener-key-1', events: Array(101).fill('*')}],
    ]
    for (const [method, path, body] of cases) {
      const res = await t.call(method, path, {body})
      expect(res.status, `${path} ${res.text.slice(0, 200)}`).toBe(400)
    }
  })

  it('shows the oldest 100 pending round-ups, counting them all', async () => {
    const user = await t.user()
    expect((await t.post(`/v1/roundupsvc/users/${user}/roundups/enable`)).status).toBe(200)
    for (let i = 0; i < 101; i++) {
      const res = await t.post('/v1/transactions/process', {
        user_id: user,
        amount: 4.35,
        merchant_name: 'M',
        transaction_id: `pos_${i}`,
      })
      expect(res.status, res.text).toBe(200)
    }
    const pending = data(await t.get(`/v1/roundupsvc/users/${user}/roundups/pending`))
    expect(pending.count).toBe(101)
    expect(pending.total).toBe(65.65)
    expect(pending.roundups).toHaveLength(100)
  })

  it('links at most 100 bank accounts to a user: the 101st is 422 ACCOUNT_LIMIT', async () => {
    const user = await t.user()
    const link = async () => {
      const {linkToken} = data(await t.post(`/v1/users/${user}/accounts/connect`))
      return t.post(`/v1/users/${user}/accounts`, {link_token: linkToken})
    }
    for (let i = 0; i < 100; i++) expect((await link()).status).toBe(201)
    const refused = await link()
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({code: 'ACCOUNT_LIMIT', details: {limit: 100, linked: 100}})
    expect(data(await t.get(`/v1/users/${user}/accounts`)).accounts).toHaveLength(100)
  })
})

describe('webhook registrations and an event’s deliveries are bounded', () => {
  let t: TestSandbox
  let receiver: Receiver
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await t.close()
    await receiver.close()
  })

  it('registers at most 100 webhooks: the 101st is 422 WEBHOOK_LIMIT', async () => {
    const ids: string[] = []
    for (let i = 0; i < 100; i++) {
      const res = await t.post('/v1/webhooks', {url: `${receiver.url}/hook-${i}`, events: ['wallet.created']})
      expect(res.status, res.text).toBe(201)
      ids.push(data(res).id)
    }
    const refused = await t.post('/v1/webhooks', {url: `${receiver.url}/one-more`, events: ['*']})
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({code: 'WEBHOOK_LIMIT', details: {limit: 100, registered: 100}})

    // An event for all 100, resent once: its detail shows the newest 100 and counts all 200.
    const trigger = await t.post('/_sandbox/trigger', {event: 'wallet.created'})
    const eventId = trigger.body.event.id as string
    await expect.poll(async () => data(await t.get(`/v1/events/${eventId}`)).deliveryCounts.total).toBe(100)
    expect((await t.post(`/v1/events/${eventId}/resend`, {})).status).toBe(201)
    const detail = data(await t.get(`/v1/events/${eventId}`))
    expect(detail.deliveryCounts.total).toBe(200)
    expect(detail.deliveries).toHaveLength(100)
    expect(detail.deliveries.every((d: {resendOf: string | null}) => d.resendOf !== null)).toBe(true)
    for (const id of ids) await t.call('DELETE', `/v1/webhooks/${id}`)
  })
})

describe('faults on demand are bounded', () => {
  let t: TestSandbox
  let receiver: Receiver
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await t.close()
    await receiver.close()
  })
  const admin = () => ({auth: t.creds.secretKey})
  // As large as a fault gets: a route of 300 characters, every method of a wallet's path.
  const addFault = (body: Record<string, unknown> = {}) =>
    t.post(
      '/_sandbox/faults',
      {route: `* /v1/wallets/wal_${'x'.repeat(300 - 18)}`, latency: {minMs: 0, maxMs: 0}, ...body},
      admin(),
    )
  /** Every fault of the partner, page by page, and the size of the largest answer. */
  async function allFaults(
    limit?: number,
  ): Promise<{faults: {id: string}[]; pages: number; largest: number}> {
    const faults: {id: string}[] = []
    let cursor: string | undefined
    let pages = 0
    let largest = 0
    do {
      const q = new URLSearchParams({
        ...(limit === undefined ? {} : {limit: String(limit)}),
        ...(cursor ? {cursor} : {}),
      })
      const res = await t.get(`/_sandbox/faults?${q}`, admin())
      expect(res.status, res.text).toBe(200)
      pages++
      largest = Math.max(largest, Buffer.byteLength(res.text))
      faults.push(...res.body.faults)
      cursor = res.body.hasMore ? res.body.nextCursor : undefined
    } while (cursor !== undefined)
    return {faults, pages, largest}
  }

  it('holds 100 live faults a partner: the 101st, API or delivery, is 422 FAULT_LIMIT and adds nothing', async () => {
    for (let i = 0; i < 99; i++) expect((await addFault()).status).toBe(201)
    const hook = data(await t.post('/v1/webhooks', {url: `${receiver.url}/h`, events: ['*']}))
    const delivery = (duplicate: number) =>
      t.post('/_sandbox/faults/deliveries', {webhookId: hook.id, duplicate}, admin())
    expect((await delivery(0.5)).status).toBe(201)

    const refused = await addFault()
    expect(refused.status).toBe(422)
    expect(refused.body).toMatchObject({code: 'FAULT_LIMIT', details: {limit: 100, live: 100}})
    expect(refused.body.message).toContain('payctl sandbox faults clear')
    const other = data(await t.post('/v1/webhooks', {url: `${receiver.url}/other`, events: ['*']}))
    const refusedDelivery = await t.post(
      '/_sandbox/faults/deliveries',
      {webhookId: other.id, duplicate: 1},
      admin(),
    )
    expect(refusedDelivery.status).toBe(422)
    expect(refusedDelivery.body.code).toBe('FAULT_LIMIT')
    // A listen session with faults is refused whole: it is not opened.
    const listen = (faults?: Record<string, number>) =>
      t.post('/v1/webhooks/listen-sessions', {
        listenerKey: 'capped-listener-key',
        ...(faults ? {faults} : {}),
      })
    const refusedListen = await listen({duplicate: 1})
    expect(refusedListen.status).toBe(422)
    expect(refusedListen.body.error.code).toBe('FAULT_LIMIT')
    expect(data(await listen()).resumed).toBe(false)
    // A registration's fault replaced is no new fault.
    expect((await delivery(0.25)).status).toBe(201)
    expect((await allFaults()).faults).toHaveLength(100)

    // Another partner's cap is its own.
    const b = await createPartner(t, 'fault-cap-b')
    expect(
      (await b.post('/_sandbox/faults', {route: 'GET /v1/users', status: 503}, {auth: b.creds.secretKey}))
        .status,
    ).toBe(201)

    const cleared = await t.call('DELETE', '/_sandbox/faults', admin())
    expect(cleared.body).toEqual({cleared: 100})
    expect((await addFault()).status).toBe(201)
    await t.call('DELETE', '/_sandbox/faults', admin())
  })

  it('spent faults do not count, and the newest 100 of them stay listed', async () => {
    for (let i = 0; i < 100; i++) {
      const added = await t.post(
        '/_sandbox/faults',
        {route: 'GET /v1/users/{id}', status: 503, times: 1},
        admin(),
      )
      expect(added.status).toBe(201)
      // Spent by the request it answers.
      expect((await t.get('/v1/users/usr_spending')).status).toBe(503)
    }
    const spentFirst = (await allFaults()).faults[0]!.id
    for (let i = 0; i < 100; i++) expect((await addFault()).status).toBe(201)
    expect((await addFault()).status).toBe(422)
    // Room for one, spent at once: 101 spent, and the oldest of them goes.
    await t.call('DELETE', `/_sandbox/faults/${(await allFaults()).faults.at(-1)!.id}`, admin())
    expect(
      (await t.post('/_sandbox/faults', {route: 'GET /v1/users/{id}', status: 503, times: 1}, admin()))
        .status,
    ).toBe(201)
    expect((await t.get('/v1/users/usr_spending')).status).toBe(503)
    const listed = (await allFaults()).faults
    expect(listed).toHaveLength(100 + 99)
    expect(listed.map((f) => f.id)).not.toContain(spentFirst)
    expect((await addFault()).status).toBe(201)
    expect((await addFault()).status).toBe(422)
    await t.call('DELETE', '/_sandbox/faults', admin())
  })

  it('lists them a page at a time: 20 by default, up to 100, each answer small', async () => {
    for (let i = 0; i < 100; i++) expect((await addFault()).status).toBe(201)
    const first = await t.get('/_sandbox/faults', admin())
    expect(first.body.faults).toHaveLength(20)
    expect(first.body.hasMore).toBe(true)
    const byDefault = await allFaults()
    expect(byDefault.pages).toBe(5)
    const whole = await allFaults(100)
    expect(whole.pages).toBe(1)
    expect(new Set(whole.faults.map((f) => f.id)).size).toBe(100)
    expect(byDefault.faults).toEqual(whole.faults)
    // About 60 KB.
    expect(whole.largest).toBeLessThan(100 * 1024)
    expect((await t.get('/_sandbox/faults?limit=101', admin())).status).toBe(400)
    const forged = await t.get(`/_sandbox/faults?cursor=${first.body.nextCursor.slice(0, -2)}AA`, admin())
    expect(forged.status).toBe(400)
    expect(forged.body.details).toMatchObject({field: 'cursor'})
    await t.call('DELETE', '/_sandbox/faults', admin())
  })
})
