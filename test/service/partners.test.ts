import {once} from 'node:events'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {DatabaseSync} from 'node:sqlite'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import type {Endpoint} from '../../src/contract/api/endpoint.js'
import {COMMON_ERRORS} from '../../src/contract/api/endpoint.js'
import {endpoints} from '../../src/contract/api/endpoints.js'
import {ERROR_STATUS, type ErrorCode} from '../../src/contract/api/error-codes.js'
import {EVENT_NAMES} from '../../src/contract/events/envelope.js'
import {SCHEMA_VERSION} from '../../src/sandbox/storage/database.js'
import {as, codeOf, createPartner, query, start, type TestSandbox, tempDir} from './helpers.js'

const DAY = 86_400

describe('partners side by side', () => {
  test('the operator creates, lists and deletes partners; nobody else can, nor learn one exists', async () => {
    const t = await start()
    try {
      const created = await t.post('/_sandbox/partners', {name: 'ci-1'}, {auth: t.creds.secretKey})
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({name: 'ci-1', operator: false})
      expect(created.body.partnerId).toMatch(/^partner_[0-9a-f]+$/)
      expect(created.body.apiKey).toMatch(/^pk_test_/)
      expect(created.body.apiSecret).toMatch(/^sk_test_/)
      expect(created.body.secretKey).toMatch(/^test_/)
      const ci = as(t, created.body)
      // Its credentials work at once, both variants.
      expect((await ci.exchange()).status).toBe(200)
      expect((await ci.get('/v1/wallets', {auth: ci.creds.secretKey})).status).toBe(200)
      // The operator's token with every scope manages too.
      const list = await t.get('/_sandbox/partners')
      expect(list.body.data.map((p: {name: string; operator: boolean}) => [p.name, p.operator])).toEqual([
        [t.creds.partnerId, true],
        ['ci-1', false],
      ])
      expect(list.text).not.toContain(created.body.secretKey)
      // Another partner is refused everything, whatever the name, existing or not.
      for (const auth of [ci.creds.secretKey, await ci.token()]) {
        for (const [method, path, body] of [
          ['POST', '/_sandbox/partners', {name: 'ci-2'}],
          ['GET', '/_sandbox/partners', undefined],
          ['DELETE', '/_sandbox/partners/ci-1', undefined],
          ['DELETE', `/_sandbox/partners/${t.creds.partnerId}`, undefined],
          ['DELETE', '/_sandbox/partners/nobody', undefined],
        ] as const) {
          const refused = await ci.call(method, path, {auth, body})
          expect(refused.status, `${method} ${path}`).toBe(403)
          expect(refused.body).toMatchObject({code: 'INSUFFICIENT_PERMISSIONS'})
          expect(refused.text).not.toContain(t.creds.partnerId)
        }
      }
      expect((await t.get('/_sandbox/partners')).body.data).toHaveLength(2)
      const deleted = await t.call('DELETE', '/_sandbox/partners/ci-1')
      expect(deleted.body).toEqual({name: 'ci-1', partnerId: created.body.partnerId, deleted: true})
      expect((await ci.get('/v1/wallets', {auth: ci.creds.secretKey})).status).toBe(401)
      expect((await t.call('DELETE', '/_sandbox/partners/ci-1')).status).toBe(404)
    } finally {
      await t.close()
    }
  })

  test('refuses bad names, a taken name and deleting the operator, keeping what is stored', async () => {
    const t = await start()
    try {
      await createPartner(t, 'team')
      for (const name of ['a/b', '..', '.hidden', 'tab\there', 'nul\u0000', 'x'.repeat(300), '', 'sp ace']) {
        const res = await t.post('/_sandbox/partners', {name})
        expect(res.status, JSON.stringify(name)).toBe(400)
        expect(res.body).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'name'}})
      }
      const taken = await t.post('/_sandbox/partners', {name: 'team'})
      expect(taken.status).toBe(409)
      expect(taken.body).toMatchObject({code: 'PARTNER_EXISTS', details: {field: 'name'}})
      const operator = await t.call('DELETE', `/_sandbox/partners/${t.creds.partnerId}`)
      expect(operator.status).toBe(422)
      expect(operator.body).toMatchObject({code: 'INVALID_STATE_TRANSITION'})
      expect((await t.get('/_sandbox/partners')).body.data.map((p: {name: string}) => p.name)).toEqual([
        t.creds.partnerId,
        'team',
      ])
    } finally {
      await t.close()
    }
  })

  test('deleting a partner removes every row of it, ends its tokens and listen sessions, and touches no other', async () => {
    const files = tempDir()
    const t = await start({data: files.file})
    try {
      const doomed = await createPartner(t, 'doomed')
      const kept = await createPartner(t, 'kept')
      for (const p of [doomed, kept]) {
        for (const event of ['transaction.completed', 'bnplsvc.payment.created', 'walletsvc.card.created'])
          expect((await p.post('/_sandbox/trigger', {event})).status).toBe(201)
        await p.post('/_sandbox/clock/advance', {seconds: DAY})
      }
      const token = await doomed.token()
      const session = await doomed.post('/v1/webhooks/listen-sessions', {listenerKey: 'listener-doomed'})
      expect(session.status, session.text).toBe(200)
      const socket = new WebSocket(
        `${t.sb.url.replace('http', 'ws')}${session.body.data.socketPath}?ticket=${session.body.data.ticket}`,
      )
      await new Promise((resolve) => socket.addEventListener('message', resolve, {once: true}))
      const closed = new Promise<number>((resolve) =>
        socket.addEventListener('close', (e) => resolve(e.code)),
      )
      const before = new Map(
        ['users', 'wallets', 'transactions', 'ledger_entries', 'events'].map((table) => [
          table,
          query(files.file, `SELECT COUNT(*) AS n FROM ${table} WHERE partner_id = ?`, kept.creds.partnerId),
        ]),
      )
      expect((await t.call('DELETE', '/_sandbox/partners/doomed')).status).toBe(200)
      expect(await closed).toBe(4410)
      expect((await doomed.get('/v1/wallets', {auth: token})).status).toBe(401)
      expect((await doomed.exchange()).status).toBe(401)
      await t.close()
      // Not one row of it is left, in any table that names its partner.
      const tables = query(
        files.file,
        "SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'partner_id'",
      )
      expect(tables.length).toBeGreaterThan(10)
      for (const {name} of tables) {
        expect(
          query(files.file, `SELECT COUNT(*) AS n FROM ${name} WHERE partner_id = ?`, doomed.creds.partnerId),
          String(name),
        ).toEqual([{n: 0}])
      }
      for (const [table, count] of before) {
        expect(
          query(files.file, `SELECT COUNT(*) AS n FROM ${table} WHERE partner_id = ?`, kept.creds.partnerId),
        ).toEqual(count)
      }
      const again = await start({data: files.file})
      try {
        const list = await again.get('/_sandbox/partners')
        expect(list.body.data.map((p: {name: string}) => p.name)).toEqual([again.creds.partnerId, 'kept'])
        // The kept partner's credentials and clock survive the restart.
        const keptAgain = as(again, kept.creds)
        const clock = await keptAgain.get('/_sandbox/clock')
        expect(clock.body.offsetSeconds).toBeGreaterThanOrEqual(DAY - 5)
      } finally {
        await again.close()
      }
    } finally {
      await t.close()
      files.cleanup()
    }
  })
})

describe('a clock per partner', () => {
  test("advancing moves the caller's clock only: another partner's ACH does not settle, its instalment is not collected", async () => {
    const t = await start({settleAfterSeconds: DAY})
    try {
      const a = await createPartner(t, 'alpha')
      const b = await createPartner(t, 'beta')
      const ach = async (p: TestSandbox) => {
        const res = await p.post('/_sandbox/trigger', {event: 'transaction.completed'})
        const txn = await p.post('/v1/transactions', {
          amount: 5000,
          currency: 'USD',
          destinationWalletId: res.body.objects.wallet,
          paymentMethodId: 'pm_ach_success',
          method: 'ach',
        })
        expect(txn.status, txn.text).toBe(201)
        return txn.body.data.id as string
      }
      const status = async (p: TestSandbox, id: string) =>
        (await p.get(`/v1/transactions/${id}`)).body.data.status
      const bnpl = async (p: TestSandbox) => {
        const res = await p.post('/_sandbox/trigger', {event: 'bnplsvc.payment.created'})
        const plan = (await p.get(`/v1/bnplsvc/payments/${res.body.objects.payment}`)).body.data
        // Money for the instalments to come.
        const card = {amount: 50_000, currency: 'USD', method: 'card', paymentMethodId: 'pm_card_visa'}
        expect((await p.post('/v1/transactions', {...card, destinationWalletId: plan.walletId})).status).toBe(
          201,
        )
        return plan.id as string
      }
      // The BNPL trigger moves its partner's clock on to the first instalment: before the ACH payments.
      const [planA, planB, achA, achB] = [await bnpl(a), await bnpl(b), await ach(a), await ach(b)]
      expect(await status(b, achB)).toBe('processing')
      const collected = async (p: TestSandbox, id: string) =>
        (await p.get(`/v1/bnplsvc/payments/${id}`)).body.data.paidInstallments
      const plansBefore = [await collected(a, planA), await collected(b, planB)]
      const moved = await a.post('/_sandbox/clock/advance', {seconds: 15 * DAY})
      expect(moved.body.settled).toBeGreaterThan(0)
      expect(await status(a, achA)).toBe('completed')
      expect(await status(b, achB)).toBe('processing')
      expect(await collected(a, planA)).toBeGreaterThan(plansBefore[0] ?? 0)
      expect(await collected(b, planB)).toBe(plansBefore[1])
      expect((await b.get('/_sandbox/clock')).body.offsetSeconds).toBeLessThan(2 * DAY)
      // Health, which nobody signs in to, tells the operator's clock.
      expect((await t.get('/_sandbox/health', {auth: null})).body.clock.offsetSeconds).toBeLessThan(2 * DAY)
    } finally {
      await t.close()
    }
  })

  test('moves to a time, forward only; freezes and resumes; refuses what makes no sense', async () => {
    const t = await start({settleAfterSeconds: DAY})
    try {
      const p = await createPartner(t, 'clocked')
      const target = new Date(Date.now() + 100 * DAY * 1000)
      target.setUTCHours(0, 0, 0, 0)
      const to = await p.post('/_sandbox/clock/advance', {to: target.toISOString()})
      expect(to.status, to.text).toBe(200)
      expect(Date.parse(to.body.now)).toBeGreaterThanOrEqual(target.getTime())
      expect(Date.parse(to.body.now)).toBeLessThan(target.getTime() + 60_000)
      for (const [body, field] of [
        [{to: new Date(Date.now()).toISOString()}, 'to'],
        [{to: 'next tuesday'}, 'to'],
        [{to: new Date(target.getTime() + 400 * DAY * 1000).toISOString()}, 'to'],
        [{}, 'seconds'],
        [{seconds: 60, to: target.toISOString()}, 'seconds'],
      ] as const) {
        const refused = await p.post('/_sandbox/clock/advance', body)
        expect(refused.status, JSON.stringify(body)).toBe(400)
        expect(refused.body).toMatchObject({code: 'VALIDATION_ERROR', details: {field}})
      }
      expect((await p.post('/_sandbox/clock/resume')).body).toMatchObject({code: 'INVALID_STATE_TRANSITION'})
      const frozen = await p.post('/_sandbox/clock/freeze')
      expect(frozen.body.frozen).toBe(true)
      expect((await p.post('/_sandbox/clock/freeze')).status).toBe(422)
      // While frozen, nothing it drives happens: an ACH due in a day stays processing.
      const res = await p.post('/_sandbox/trigger', {event: 'transaction.completed'})
      const txn = await p.post('/v1/transactions', {
        amount: 700,
        currency: 'USD',
        destinationWalletId: res.body.objects.wallet,
        paymentMethodId: 'pm_ach_success',
        method: 'ach',
      })
      expect(txn.body.data.createdAt).toBe(frozen.body.now)
      expect((await p.get('/_sandbox/clock')).body.now).toBe(frozen.body.now)
      const moved = await p.post('/_sandbox/clock/advance', {seconds: 2 * DAY})
      expect(moved.body.frozen).toBe(true)
      expect(Date.parse(moved.body.now) - Date.parse(frozen.body.now)).toBe(2 * DAY * 1000)
      expect((await p.get(`/v1/transactions/${txn.body.data.id}`)).body.data.status).toBe('completed')
      const resumed = await p.post('/_sandbox/clock/resume')
      expect(resumed.body).toMatchObject({frozen: false, now: moved.body.now})
      // The operator's clock never moved.
      expect((await t.get('/_sandbox/clock')).body).toMatchObject({frozen: false})
      expect(Math.abs((await t.get('/_sandbox/clock')).body.offsetSeconds)).toBeLessThan(5)
    } finally {
      await t.close()
    }
  })

  test("tokens, idempotency keys, rate limits, webhook retries and the HTTP Date header go by real time; records and events by the partner's clock", async () => {
    const t = await start({tokenTtlSeconds: 3600, rateLimit: 'spec', webhookRetries: 'realtime'})
    try {
      const p = await createPartner(t, 'traveller')
      const refusing = createServer((_req, res) => res.writeHead(500).end()).listen(0, '127.0.0.1')
      await once(refusing, 'listening')
      const port = (refusing.address() as AddressInfo).port
      const hook = await p.post('/v1/webhooks', {
        url: `http://127.0.0.1:${port}/hooks`,
        events: ['wallet.created'],
      })
      expect(hook.status, hook.text).toBe(201)
      const token = await p.token()
      const key = {headers: {'idempotency-key': 'made-before-the-jump'}}
      const first = await p.post('/v1/users', {email: 'z@example.test', first_name: 'Z', last_name: 'Z'}, key)
      expect(first.status).toBe(201)
      const moved = await p.post('/_sandbox/clock/advance', {seconds: 30 * DAY})
      expect(moved.status).toBe(200)
      // A token of an hour still works a month later on the partner's clock: it is a credential.
      expect((await p.get('/v1/wallets', {auth: token})).status).toBe(200)
      // A retry of the same request replays, as it would an instant after in real time.
      const again = await p.post('/v1/users', {email: 'z@example.test', first_name: 'Z', last_name: 'Z'}, key)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body.data.id).toBe(first.body.data.id)
      // The HTTP Date header is the machine's: doctor's skew check compares it with the client's.
      const date = Date.parse(again.headers.get('date') ?? '')
      expect(Math.abs(date - Date.now())).toBeLessThan(60_000)
      // Rate limits count real time: the month skipped refilled nothing, and the budget resets
      // within a real minute.
      const before = Number(again.headers.get('x-ratelimit-remaining'))
      const counted = await p.get('/v1/wallets')
      expect(Number(counted.headers.get('x-ratelimit-remaining'))).toBeLessThan(before)
      expect(Number(counted.headers.get('x-ratelimit-reset')) * 1000 - Date.now()).toBeLessThan(61_000)
      // What the partner makes is dated by its own clock, and so are the events about it.
      const user = await p.post('/v1/users', {email: 'y@example.test', first_name: 'Y', last_name: 'Y'})
      expect(Date.parse(user.body.data.created_at ?? user.body.data.createdAt)).toBeGreaterThan(
        Date.now() + 29 * DAY * 1000,
      )
      const wallet = await p.post('/v1/wallets', {userId: user.body.data.id, currency: 'USD'})
      const events = await p.get(`/v1/events?type=wallet.created&limit=1`)
      expect(events.body.data.events[0].data.id).toBe(wallet.body.data.id)
      expect(Date.parse(events.body.data.events[0].timestamp)).toBeGreaterThan(Date.now() + 29 * DAY * 1000)
      refusing.close()
      // Its delivery is retried on real time: the next attempt of a refused one is seconds away,
      // not a month, and a further jump of the clock does not bring it closer.
      const retried = await p.get(`/v1/events/${events.body.data.events[0].id}`)
      const delivery = retried.body.data.deliveries.find(
        (d: {webhookId: string | null}) => d.webhookId !== null,
      )
      await p.post('/_sandbox/clock/advance', {seconds: 30 * DAY})
      const later = (await p.get(`/v1/events/${events.body.data.events[0].id}`)).body.data.deliveries.find(
        (d: {id: string}) => d.id === delivery.id,
      )
      expect(later.attempts).toBeLessThanOrEqual(2)
      expect(later.nextAttemptAt).not.toBeNull()
      expect(Date.parse(later.nextAttemptAt) - Date.now()).toBeLessThan(60_000)
    } finally {
      await t.close()
    }
  })

  test('a reset puts the partner back on real time', async () => {
    const t = await start()
    try {
      await t.post('/_sandbox/clock/advance', {seconds: 3 * DAY})
      await t.post('/_sandbox/clock/freeze')
      await t.post('/_sandbox/reset')
      const clock = await t.get('/_sandbox/clock')
      expect(clock.body.frozen).toBe(false)
      expect(Math.abs(clock.body.offsetSeconds)).toBeLessThan(5)
    } finally {
      await t.close()
    }
  })

  test('a data file of the one shared clock (schema 4) gives each of its partners the time it showed', async () => {
    const files = tempDir()
    try {
      const first = await start({data: files.file})
      const other = await createPartner(first, 'other')
      await first.close()
      // What a schema 4 file held: one offset for the file, no clock per partner.
      const db = new DatabaseSync(files.file)
      db.exec(`UPDATE meta SET value = '4' WHERE key = 'schema_version';
        INSERT INTO meta (key, value) VALUES ('clock_offset_ms', '${5 * DAY * 1000}');
        DELETE FROM partner_clocks;`)
      db.close()
      const again = await start({data: files.file})
      try {
        for (const p of [again, as(again, other.creds)]) {
          const clock = await p.get('/_sandbox/clock')
          expect(clock.body.offsetSeconds).toBeGreaterThanOrEqual(5 * DAY - 5)
          expect(clock.body.offsetSeconds).toBeLessThan(5 * DAY + 5)
        }
      } finally {
        await again.close()
      }
      expect(
        query(files.file, "SELECT value FROM meta WHERE key IN ('clock_offset_ms', 'schema_version')"),
      ).toEqual([{value: String(SCHEMA_VERSION)}])
    } finally {
      files.cleanup()
    }
  })
})

/** Valid bodies for the changes with an id in their path, so that only the id can be refused. */
const BODIES: Record<string, unknown> = {
  'POST /users/{id}/accounts': {link_token: 'lt_0000000000000000'},
  'POST /users/{id}/accounts/connect': {},
  'POST /bnplsvc/payments/{id}/cancel': {},
  'POST /users/{id}/payment-methods': {type: 'card', token: 'tok_visa'},
  'PUT /users/{id}/roundup-settings': {enabled: true, multiplier: 2, max_roundup_amount: 5},
  'POST /roundupsvc/users/{id}/roundups/enable': {},
  'PUT /roundupsvc/users/{id}/roundups/settings': {enabled: true},
  'POST /transactions/{id}/refund': {},
  'POST /walletsvc/users/{id}/cards': {},
  'PATCH /wallets/{id}': {label: 'mine now'},
  'POST /webhooks/{id}/rotate-secret': {},
  'POST /events/{id}/resend': {},
  // Sending a file is to one's own name: an empty one is refused the same, whoever else has the name.
  'PUT /_sandbox/snapshots/{name}/file': {offset: 0, data: '', last: true},
}

/** Which kind of record a path's parameter names, from the path. */
function kindOf(path: string, param: string): string {
  if (param === 'methodId') return 'paymentMethod'
  if (param === 'name' && path.startsWith('/_sandbox/partners/')) return 'partnerName'
  if (path.startsWith('/webhooks/listen-sessions/')) return 'session'
  if (path.startsWith('/_sandbox/faults/')) return 'fault'
  if (path.startsWith('/_sandbox/snapshots/')) return 'snapshot'
  for (const [prefix, kind] of [
    ['/users/', 'user'],
    ['/roundupsvc/users/', 'user'],
    ['/walletsvc/users/', 'user'],
    ['/wallets/', 'wallet'],
    ['/transactions/', 'transaction'],
    ['/bnplsvc/payments/', 'bnpl'],
    ['/events/', 'event'],
    ['/webhooks/', 'webhook'],
  ] as const)
    if (path.startsWith(prefix)) return kind
  throw new Error(`no kind for ${path}`)
}

type Ids = Record<string, string[]>

/** Everything a partner has, made through the API: every event's trigger, a registration, a session. */
async function seed(p: TestSandbox, name: string): Promise<Ids> {
  const ids: Ids = {partnerName: [name]}
  const add = (kind: string, id: unknown) => {
    if (typeof id === 'string') ids[kind] = [...(ids[kind] ?? []), id]
  }
  for (const event of EVENT_NAMES) {
    const res = await p.post('/_sandbox/trigger', {event})
    expect(res.status, res.text).toBe(201)
    for (const [key, id] of Object.entries(res.body.objects as Record<string, string>)) {
      const prefix = id.split('_')[0]
      const kind = {usr: 'user', wal: 'wallet', txn: 'transaction', bnpl: 'bnpl', pm: 'paymentMethod'}[
        prefix ?? ''
      ]
      add(kind ?? key, id)
    }
    add('event', res.body.event.id)
  }
  const user = ids.user?.[0]
  add(
    'paymentMethod',
    (await p.post(`/v1/users/${user}/payment-methods`, {type: 'card', token: 'tok_visa'})).body.data.id,
  )
  add(
    'webhook',
    (await p.post('/v1/webhooks', {url: 'http://127.0.0.1:9/hooks', events: ['wallet.created']})).body.data
      .id,
  )
  add(
    'session',
    (await p.post('/v1/webhooks/listen-sessions', {listenerKey: `listener-${name}`})).body.data.id,
  )
  // A fault on a record nobody has: it never fires, but it is the partner's to see and remove.
  const fault = await p.post('/_sandbox/faults', {
    route: 'GET /v1/users/usr_ffffffffffffffffffffffff',
    status: 503,
  })
  expect(fault.status, fault.text).toBe(201)
  add('fault', fault.body.id)
  // A snapshot: another partner's name for one is a name the caller has none of.
  const snapshot = await p.post('/_sandbox/snapshots', {name: `snap-${name}`})
  expect(snapshot.status, snapshot.text).toBe(201)
  add('snapshot', snapshot.body.name)
  for (const kind of [
    'user',
    'wallet',
    'transaction',
    'bnpl',
    'event',
    'paymentMethod',
    'webhook',
    'session',
    'fault',
  ])
    expect(ids[kind]?.length, kind).toBeGreaterThan(0)
  return ids
}

/** An id of the same kind and shape that no partner has. */
const madeUp = (id: string) => id.replace(/[0-9a-f]{6}$/, '000000')

describe('three partners live at once, each tried with the others’ ids and credentials', () => {
  let t: TestSandbox
  const partners: {p: TestSandbox; ids: Ids}[] = []

  beforeAll(async () => {
    t = await start({rateLimit: 'off', settleAfterSeconds: 0})
    for (const name of ['red', 'green', 'blue']) {
      const p = await createPartner(t, name)
      partners.push({p, ids: await seed(p, name)})
    }
  }, 120_000)
  afterAll(() => t.close())

  const withParams = (Object.values(endpoints) as Endpoint[]).filter((ep) => ep.path.includes('{'))

  test('every path with an id answers for another partner’s id exactly as for an id nobody has', async () => {
    let tried = 0
    for (const [i, owner] of partners.entries()) {
      const intruder = partners[(i + 1) % partners.length]!
      const ownUser = intruder.ids.user![0]!
      for (const ep of withParams) {
        const prefix = ep.versioned === false ? '' : '/v1'
        const params = [...ep.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
        const last = params.at(-1)!
        for (const id of owner.ids[kindOf(ep.path, last)]!.slice(0, 2)) {
          const pathFor = (value: string) =>
            prefix +
            ep.path.replace(/\{(\w+)\}/g, (_, name: string) =>
              name === last ? value : name === 'id' && last === 'methodId' ? ownUser : '',
            )
          const body = BODIES[`${ep.method} ${ep.path}`]
          const theirs = await intruder.p.call(ep.method, pathFor(id), {body})
          const nobodys = await intruder.p.call(ep.method, pathFor(madeUp(id)), {body})
          const what = `${ep.method} ${ep.path} with ${id}: ${theirs.status} ${theirs.text}`
          const code = codeOf(theirs) as ErrorCode
          expect(theirs.status, what).toBeGreaterThanOrEqual(400)
          expect([...ep.errors, ...COMMON_ERRORS], what).toContain(code)
          expect(theirs.status, what).toBe(ERROR_STATUS[code])
          expect(code, what).not.toBe('VALIDATION_ERROR')
          expect([theirs.status, code], what).toEqual([nobodys.status, codeOf(nobodys)])
          tried++
        }
      }
    }
    expect(tried).toBeGreaterThan(withParams.length * 3)
    // Nothing the intruders tried changed the owners' records.
    for (const {p, ids} of partners) {
      expect((await p.get(`/v1/users/${ids.user![0]}`)).status).toBe(200)
      expect((await p.get(`/v1/webhooks/${ids.webhook![0]}`)).status).toBe(200)
    }
  }, 120_000)

  test('every list shows a partner its own records only', async () => {
    const lists = (Object.values(endpoints) as Endpoint[]).filter(
      (ep) => ep.method === 'GET' && (!ep.path.includes('{') || ep.path.startsWith('/users/{id}/')),
    )
    expect(lists.length).toBeGreaterThan(6)
    for (const [i, viewer] of partners.entries()) {
      const others = partners
        .filter((_, j) => j !== i)
        .flatMap(({ids}) =>
          Object.entries(ids).flatMap(([kind, list]) => (kind === 'partnerName' ? [] : list)),
        )
      for (const ep of lists) {
        if (ep.operationId === 'listPartners' || ep.operationId === 'sandboxHealth') continue
        const path = (ep.versioned === false ? '' : '/v1') + ep.path.replace('{id}', viewer.ids.user![0]!)
        const res = await viewer.p.get(path)
        expect(res.status, `${path}: ${res.text}`).toBe(200)
        if (ep.operationId === 'listRequestLog') {
          // Its own requests, which name the others' ids it tried above, and nobody else's.
          const partners = new Set(res.body.entries.map((e: {partner: string}) => e.partner))
          expect([...partners]).toEqual([viewer.p.creds.partnerId])
          continue
        }
        for (const id of others) expect(res.text, `${path} shows ${id}`).not.toContain(id)
      }
    }
  })

  test("every control route acts on the caller's partner alone", async () => {
    const [red, green, blue] = partners as [(typeof partners)[0], (typeof partners)[0], (typeof partners)[0]]
    const clockOf = async (p: TestSandbox) => (await p.get('/_sandbox/clock')).body
    const greenBefore = await clockOf(green.p)
    await red.p.post('/_sandbox/clock/advance', {seconds: 30 * DAY})
    await red.p.post('/_sandbox/clock/freeze')
    expect((await clockOf(green.p)).frozen).toBe(false)
    expect(Math.abs((await clockOf(green.p)).offsetSeconds - greenBefore.offsetSeconds)).toBeLessThan(5)
    expect((await clockOf(red.p)).offsetSeconds).toBeGreaterThanOrEqual(30 * DAY - 5)
    const eventsBefore = (await green.p.get('/v1/events?limit=100')).body.data.events.length
    await blue.p.post('/_sandbox/trigger', {event: 'wallet.created'})
    expect((await green.p.get('/v1/events?limit=100')).body.data.events.length).toBe(eventsBefore)
    expect((await blue.p.post('/_sandbox/reset')).status).toBe(200)
    expect((await blue.p.get(`/v1/users/${blue.ids.user![0]}`)).status).toBe(404)
    for (const {p, ids} of [red, green]) expect((await p.get(`/v1/users/${ids.user![0]}`)).status).toBe(200)
    for (const {p} of partners) expect((await p.get('/_sandbox/partners')).status).toBe(403)
  })
})
