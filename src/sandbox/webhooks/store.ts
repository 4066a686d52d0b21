import {randomBytes} from 'node:crypto'
import {ALL_EVENTS, selectsEvent} from '../../contract/webhooks.js'
import type {RetrySchedule} from '../context.js'
import {countShape, type Database} from '../database.js'
import {ApiError} from '../errors.js'
import {randomHex} from '../ids.js'
import type {StoredEvent} from './envelope.js'
import {nextAttemptAt} from './schedule.js'

/** How long a listen session keeps collecting deliveries after its listener was last connected. */
export const LISTEN_REPLAY_WINDOW_MS = 60 * 60 * 1000
/** How long a session no listener has connected to yet collects: a ticket's life. */
export const LISTEN_PRECONNECT_MS = 60 * 1000
/** Open listen sessions a partner may have at once. */
export const LISTEN_SESSION_CAP = 100
/** Webhook registrations a partner may have. */
export const WEBHOOK_CAP = 100
/** Deliveries an event's detail shows (the newest); resends can make more. */
export const EVENT_DELIVERIES_SHOWN = 100
/** How much of a receiver's answer is kept with an attempt. */
export const RESPONSE_BODY_LIMIT = 2048
/** How much of an answer that is not a 2xx is kept: enough to see what went wrong, not a page. */
export const ERROR_RESPONSE_BODY_LIMIT = 256

const FANOUT_CURSOR = 'webhooks_fanout_seq'
const FANOUT_BATCH = 500

export const newWebhookId = {
  endpoint: () => `whk_${randomHex(12)}`,
  delivery: () => `dlv_${randomHex(12)}`,
  session: () => `lsn_${randomHex(12)}`,
}

/** A fresh signing secret: `whsec_` and 32 base64url characters (192 random bits). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`
}

export interface EndpointRow {
  seq: number
  id: string
  partner_id: string
  url: string
  events: string
  secret: string
  previous_secret: string | null
  previous_secret_expires_at: number | null
  from_event_seq: number
  created_at: string
  updated_at: string
}

export interface SessionRow {
  id: string
  partner_id: string
  listener_key: string
  secret: string
  events: string
  from_event_seq: number
  last_seen_at: number
  created_at: string
  connected_at: number | null
  ended_at: number | null
}

/**
 * Whether a session is open (collects deliveries) at `now`: not ended, and its listener connected
 * within the replay window, or, if none ever connected, it was opened within a ticket's life. A
 * connected listener touches its session every few seconds.
 */
export function sessionIsOpen(session: SessionRow, now: number): boolean {
  if (session.ended_at !== null) return false
  return (
    session.last_seen_at >=
    now - (session.connected_at === null ? LISTEN_PRECONNECT_MS : LISTEN_REPLAY_WINDOW_MS)
  )
}

// The same rule in SQL, with the two horizons as parameters (now - preconnect, now - replay window).
const OPEN_SESSION = `ended_at IS NULL AND last_seen_at >= CASE WHEN connected_at IS NULL THEN ? ELSE ? END`
const horizons = (now: number): [number, number] => [
  now - LISTEN_PRECONNECT_MS,
  now - LISTEN_REPLAY_WINDOW_MS,
]

export interface DeliveryRow {
  seq: number
  id: string
  partner_id: string
  event_id: string
  endpoint_id: string | null
  session_id: string | null
  url: string | null
  state: 'pending' | 'succeeded' | 'failed'
  attempts: number
  failures: number
  next_attempt_at: number | null
  last_status: number | null
  last_error: string | null
  resend_of: string | null
  created_at: string
  completed_at: string | null
}

export interface AttemptRow {
  delivery_id: string
  attempt: number
  via: 'http' | 'listen'
  started_at: string
  signature_t: number
  status: number | null
  duration_ms: number | null
  error: string | null
  response_body: string | null
}

/** What one attempt came to, and what it means for the delivery. */
export interface AttemptOutcome {
  via: 'http' | 'listen'
  startedAt: number
  signatureT: number
  status: number | null
  durationMs: number | null
  error: string | null
  responseBody: string | null
  succeeded: boolean
  /**
   * False when the attempt never reached the receiver for a reason that is not the receiver's
   * (the listen link dropped before the CLI answered): it is retried at once and does not use up
   * the retry schedule.
   */
  countsAsFailure: boolean
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The receiver a URL delivers to, for fair scheduling: its origin (scheme, host and port). */
export function receiverOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** What fan-out reads of an event. */
type FanOutEvent = Pick<StoredEvent, 'seq' | 'id' | 'type' | 'partner_id'>

/** Every statement of the store, prepared once, each with the type of its rows. */
function statements(database: Database) {
  // Long only as a list: one entry per statement.
  const p = database.prepare.bind(database)
  return {
    maxSeq: p<{seq: number}>('SELECT COALESCE(MAX(seq), 0) AS seq FROM events'),
    // Only what fan-out needs: not the data, which is most of a row.
    eventsAfter: p<FanOutEvent>(
      'SELECT seq, id, type, partner_id FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
    ),
    // Where the oldest registration or session starts (NULL with none): no event before it goes anywhere.
    firstTargetSeq: p<{seq: number | null}>(
      `SELECT MIN(seq) AS seq FROM (SELECT MIN(from_event_seq) AS seq FROM webhook_endpoints
         UNION ALL SELECT MIN(from_event_seq) FROM webhook_listen_sessions)`,
    ),
    eventById: p<StoredEvent>('SELECT * FROM events WHERE id = ?'),
    latestOfType: p<StoredEvent>(
      'SELECT * FROM events WHERE partner_id = ? AND type = ? AND seq > ? ORDER BY seq DESC LIMIT 1',
    ),
    saveCursor: p(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
    readCursor: p<{value: string}>('SELECT value FROM meta WHERE key = ?'),
    insertEndpoint: p<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, partner_id, url, events, secret, from_event_seq, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    endpointsOf: p<EndpointRow>('SELECT * FROM webhook_endpoints WHERE partner_id = ? ORDER BY seq'),
    countEndpoints: p<{n: number}>('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE partner_id = ?'),
    endpointById: p<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?'),
    deleteEndpoint: p('DELETE FROM webhook_endpoints WHERE id = ?'),
    rotate: p<EndpointRow>(
      `UPDATE webhook_endpoints SET previous_secret = ?, previous_secret_expires_at = ?, secret = ?, updated_at = ?
       WHERE id = ? RETURNING *`,
    ),
    sessionByKey: p<SessionRow>(
      'SELECT * FROM webhook_listen_sessions WHERE partner_id = ? AND listener_key = ?',
    ),
    sessionById: p<SessionRow>('SELECT * FROM webhook_listen_sessions WHERE id = ?'),
    openSessionsOf: p<SessionRow>(
      `SELECT * FROM webhook_listen_sessions WHERE partner_id = ? AND ${OPEN_SESSION}`,
    ),
    countOpenSessions: p<{n: number; lapse: number | null}>(
      `SELECT COUNT(*) AS n, MIN(last_seen_at + CASE WHEN connected_at IS NULL THEN ${LISTEN_PRECONNECT_MS} ELSE ${LISTEN_REPLAY_WINDOW_MS} END) AS lapse
       FROM webhook_listen_sessions WHERE partner_id = ? AND ${OPEN_SESSION}`,
    ),
    insertSession: p<SessionRow>(
      `INSERT INTO webhook_listen_sessions (id, partner_id, listener_key, secret, events, from_event_seq, last_seen_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    updateSession: p<SessionRow>(
      'UPDATE webhook_listen_sessions SET events = ?, from_event_seq = ?, last_seen_at = ?, ended_at = NULL WHERE id = ? RETURNING *',
    ),
    touchSession: p('UPDATE webhook_listen_sessions SET last_seen_at = ? WHERE id = ?'),
    connectSession: p('UPDATE webhook_listen_sessions SET last_seen_at = ?, connected_at = ? WHERE id = ?'),
    endSession: p('UPDATE webhook_listen_sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL'),
    staleSessions: p<{id: string}>(
      `SELECT DISTINCT s.id FROM webhook_listen_sessions s JOIN webhook_deliveries d ON d.session_id = s.id
       WHERE d.state = 'pending' AND NOT (${OPEN_SESSION})`,
    ),
    insertDelivery: p<DeliveryRow>(
      `INSERT INTO webhook_deliveries (id, partner_id, event_id, endpoint_id, session_id, url, state, next_attempt_at, resend_of, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?) RETURNING *`,
    ),
    deliveryById: p<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?'),
    deliveriesOfEvent: p<DeliveryRow>(
      'SELECT * FROM (SELECT * FROM webhook_deliveries WHERE event_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq',
    ),
    lastDeliveryTo: p<{id: string}>(
      `SELECT id FROM webhook_deliveries WHERE event_id = ? AND (endpoint_id = ? OR session_id = ?)
       ORDER BY seq DESC LIMIT 1`,
    ),
    countsOfEvent: p<{state: DeliveryRow['state']; n: number}>(
      'SELECT state, COUNT(*) AS n FROM webhook_deliveries WHERE event_id = ? GROUP BY state',
    ),
    endpointTargets: p<{id: string; url: string}>('SELECT id, url FROM webhook_endpoints ORDER BY seq'),
    dueOfEndpoint: p<DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE endpoint_id = ? AND state = 'pending' AND next_attempt_at <= ?
       ORDER BY next_attempt_at, seq LIMIT ?`,
    ),
    nextOfEndpoint: p<{at: number | null}>(
      `SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE endpoint_id = ? AND state = 'pending'`,
    ),
    dueSession: p<DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE session_id = ? AND state = 'pending' AND next_attempt_at <= ?
       ORDER BY seq LIMIT ?`,
    ),
    nextSession: p<{at: number | null}>(
      `SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE session_id = ? AND state = 'pending'`,
    ),
    pendingOfSession: p<{n: number}>(
      `SELECT COUNT(*) AS n FROM webhook_deliveries WHERE session_id = ? AND state = 'pending'`,
    ),
    pendingTypesOfSession: p<{id: string; type: string}>(
      `SELECT d.id, e.type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.session_id = ? AND d.state = 'pending'`,
    ),
    lease: p('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND state = ?'),
    insertAttempt: p(
      `INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, via, started_at, signature_t, status, duration_ms, error, response_body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    attemptsOf: p<AttemptRow>('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt'),
    settle: p(
      `UPDATE webhook_deliveries SET state = ?, attempts = ?, failures = ?, next_attempt_at = ?, last_status = ?,
         last_error = ?, completed_at = ? WHERE id = ?`,
    ),
    abandon: p(
      `UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, last_error = ?, completed_at = ?
       WHERE id = ? AND state = 'pending'`,
    ),
    abandonOfEndpoint: p(
      `UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, last_error = ?, completed_at = ?
       WHERE endpoint_id = ? AND state = 'pending'`,
    ),
    abandonOfSession: p(
      `UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, last_error = ?, completed_at = ?
       WHERE session_id = ? AND state = 'pending'`,
    ),
  }
}

/** The webhook tables: registrations, listen sessions, deliveries and their attempts. Synchronous. */
export class WebhookStore {
  readonly #database: Database
  readonly #schedule: RetrySchedule
  readonly #s: ReturnType<typeof statements>

  constructor(database: Database, schedule: RetrySchedule) {
    this.#database = database
    this.#schedule = schedule
    this.#s = statements(database)
    // Start delivering from the events recorded after webhooks first ran on this data file.
    database.metaValue(
      FANOUT_CURSOR,
      () => String(this.maxEventSeq()),
      countShape(Number.MAX_SAFE_INTEGER, 'an event sequence number'),
    )
  }

  get schedule(): RetrySchedule {
    return this.#schedule
  }

  maxEventSeq(): number {
    return Number(this.#s.maxSeq.get()!.seq)
  }

  event(id: string): StoredEvent | undefined {
    return this.#s.eventById.get(id)
  }

  /** The newest event of `type` of a partner recorded after `afterSeq`, if any. */
  latestEvent(partnerId: string, type: string, afterSeq: number): StoredEvent | undefined {
    return this.#s.latestOfType.get(partnerId, type, afterSeq)
  }

  // Registrations

  /** A new registration; past WEBHOOK_CAP of the partner's, 422 WEBHOOK_LIMIT. */
  createEndpoint(partnerId: string, url: string, events: string[], now: number): EndpointRow {
    const registered = Number(this.#s.countEndpoints.get(partnerId)!.n)
    if (registered >= WEBHOOK_CAP) {
      throw new ApiError(
        'WEBHOOK_LIMIT',
        `${registered} webhooks are registered, the most a partner may have; delete one first (payctl webhooks delete)`,
        {limit: WEBHOOK_CAP, registered},
      )
    }
    return this.#s.insertEndpoint.get(
      newWebhookId.endpoint(),
      partnerId,
      url,
      JSON.stringify(events),
      newSigningSecret(),
      this.maxEventSeq(),
      iso(now),
      iso(now),
    )!
  }

  endpoints(partnerId: string): EndpointRow[] {
    return this.#s.endpointsOf.all(partnerId)
  }

  endpoint(partnerId: string, id: string): EndpointRow | undefined {
    const row = this.#s.endpointById.get(id)
    return row?.partner_id === partnerId ? row : undefined
  }

  endpointById(id: string): EndpointRow | undefined {
    return this.#s.endpointById.get(id)
  }

  /** Delete a registration; its deliveries still pending are given up. */
  deleteEndpoint(row: EndpointRow, now: number): void {
    this.#database.transaction(() => {
      this.#s.abandonOfEndpoint.run('the webhook was deleted', iso(now), row.id)
      this.#s.deleteEndpoint.run(row.id)
    })
  }

  /** Replace the secret; the old one keeps signing until `overlapSeconds` from now (0: not at all). */
  rotateSecret(row: EndpointRow, overlapSeconds: number, now: number): EndpointRow {
    return this.#s.rotate.get(
      overlapSeconds > 0 ? row.secret : null,
      overlapSeconds > 0 ? now + overlapSeconds * 1000 : null,
      newSigningSecret(),
      iso(now),
      row.id,
    )!
  }

  /** The secrets a delivery to `row` is signed with at `now`: the current one, then the old one. */
  signingSecrets(row: EndpointRow, now: number): string[] {
    const previous =
      row.previous_secret !== null && (row.previous_secret_expires_at ?? 0) > now ? [row.previous_secret] : []
    return [row.secret, ...previous]
  }

  // Listen sessions

  /**
   * The session of a listener key, created on first use (selecting `events`, every event when none
   * are given). A session that is no longer open (ended, or its listener away for longer than the
   * replay window, or never connected within a ticket's life) starts afresh: its backlog is given
   * up, and it collects from now. A new or restarted session takes one of the partner's
   * LISTEN_SESSION_CAP open sessions: past the cap, 429 LISTEN_SESSION_LIMIT. Opening it again with
   * other `events` gives up the deliveries waiting for it that they no longer select; without
   * `events`, its selectors stay as they are. Its secret never changes.
   */
  openSession(
    partnerId: string,
    listenerKey: string,
    events: string[] | undefined,
    connected: (sessionId: string) => boolean,
    now: number,
  ): {session: SessionRow; resumed: boolean; pending: number} {
    return this.#database.transaction(() => {
      const existing = this.#s.sessionByKey.get(partnerId, listenerKey)
      const open = existing !== undefined && (connected(existing.id) || sessionIsOpen(existing, now))
      if (!open) this.#assertRoomForSession(partnerId, now)
      if (existing === undefined) {
        const session = this.#s.insertSession.get(
          newWebhookId.session(),
          partnerId,
          listenerKey,
          newSigningSecret(),
          JSON.stringify(events ?? [ALL_EVENTS]),
          this.maxEventSeq(),
          now,
          iso(now),
        )!
        return {session, resumed: false, pending: 0}
      }
      if (!open) {
        const reason =
          existing.ended_at !== null
            ? 'the listen session was ended'
            : 'the listener was away for longer than the replay window'
        this.#s.abandonOfSession.run(reason, iso(now), existing.id)
      }
      const selectors = JSON.stringify(events ?? JSON.parse(existing.events))
      if (open && selectors !== existing.events) {
        const chosen = JSON.parse(selectors) as string[]
        const reason = `the listen session's events changed to ${chosen.join(',')}, which do not select it`
        for (const row of this.#s.pendingTypesOfSession.all(existing.id)) {
          if (!selectsEvent(chosen, row.type)) this.#s.abandon.run(reason, iso(now), row.id)
        }
      }
      const session = this.#s.updateSession.get(
        selectors,
        open ? existing.from_event_seq : this.maxEventSeq(),
        now,
        existing.id,
      )!
      const pending = Number(this.#s.pendingOfSession.get(existing.id)!.n)
      return {session, resumed: open, pending}
    })
  }

  #assertRoomForSession(partnerId: string, now: number): void {
    const {n, lapse} = this.#s.countOpenSessions.get(partnerId, ...horizons(now))!
    if (n < LISTEN_SESSION_CAP) return
    const retryAfter = Math.max(1, Math.ceil(((lapse ?? now) - now) / 1000))
    throw new ApiError(
      'LISTEN_SESSION_LIMIT',
      `${n} listen sessions are open, the most a partner may have at once; end one (DELETE /v1/webhooks/listen-sessions/{id}) or wait for one to lapse`,
      {limit: LISTEN_SESSION_CAP, open: n},
      {headers: {'retry-after': String(retryAfter)}},
    )
  }

  /**
   * End a session of the partner's: it collects nothing more, what waits for it is given up, and
   * opening its listener key again starts it afresh (same secret). False when it is not theirs.
   */
  endSession(partnerId: string, id: string, now: number): boolean {
    return this.#database.transaction(() => {
      const session = this.#s.sessionById.get(id)
      if (session === undefined || session.partner_id !== partnerId) return false
      this.#s.endSession.run(now, id)
      this.#s.abandonOfSession.run('the listen session was ended', iso(now), id)
      return true
    })
  }

  session(id: string): SessionRow | undefined {
    return this.#s.sessionById.get(id)
  }

  touchSession(id: string, now: number): void {
    this.#s.touchSession.run(now, id)
  }

  /** A listener connected to the session: from now on it collects for the whole replay window. */
  connectSession(id: string, now: number): void {
    this.#s.connectSession.run(now, now, id)
  }

  /** Give up the backlog of sessions no longer open (their listener away for longer than the window). */
  expireAbandonedSessions(connected: (sessionId: string) => boolean, now: number): void {
    const stale = this.#s.staleSessions.all(...horizons(now))
    for (const {id} of stale) {
      if (!connected(id)) {
        this.#s.abandonOfSession.run('the listener was away for longer than the replay window', iso(now), id)
      }
    }
  }

  // Fan-out: events → deliveries

  /**
   * Turn the events recorded since the last call into one pending delivery per registration and
   * per listen session that selects them. The cursor moves in the same transaction as the inserts,
   * so every event is fanned out exactly once, even across a crash.
   */
  fanOut(now: number): number {
    // Nobody registered and nobody listening: no event has anywhere to go, and nothing is written
    // or even begun (this runs after every request that records an event). A target starts at the
    // events recorded after it came, so the cursor may skip to the oldest target's start.
    const first = this.#s.firstTargetSeq.get()!.seq
    if (first === null) return 0
    let created = 0
    for (;;) {
      const batch = this.#database.transaction(() => {
        const cursor = Math.max(first, Number(this.#s.readCursor.get(FANOUT_CURSOR)!.value))
        const events = this.#s.eventsAfter.all(cursor, FANOUT_BATCH)
        type Target<R> = {row: R; events: readonly string[]}
        const targets = new Map<string, {endpoints: Target<EndpointRow>[]; sessions: Target<SessionRow>[]}>()
        const withEvents = <R extends {events: string}>(row: R): Target<R> => ({
          row,
          events: JSON.parse(row.events) as string[],
        })
        for (const event of events) {
          const partner = event.partner_id
          let of = targets.get(partner)
          if (of === undefined) {
            of = {
              endpoints: this.#s.endpointsOf.all(partner).map(withEvents),
              sessions: this.#s.openSessionsOf.all(partner, ...horizons(now)).map(withEvents),
            }
            targets.set(partner, of)
          }
          for (const ep of of.endpoints) {
            if (ep.row.from_event_seq < event.seq && selectsEvent(ep.events, event.type)) {
              this.#insertDelivery(event, {endpoint: ep.row}, null, now)
              created++
            }
          }
          for (const s of of.sessions) {
            if (s.row.from_event_seq < event.seq && selectsEvent(s.events, event.type)) {
              this.#insertDelivery(event, {session: s.row}, null, now)
              created++
            }
          }
        }
        const last = events.at(-1)
        if (last !== undefined) this.#s.saveCursor.run(FANOUT_CURSOR, String(last.seq))
        return events.length
      })
      if (batch < FANOUT_BATCH) return created
    }
  }

  #insertDelivery(
    event: FanOutEvent,
    target: {endpoint: EndpointRow} | {session: SessionRow},
    resendOf: string | null,
    now: number,
  ): DeliveryRow {
    const endpoint = 'endpoint' in target ? target.endpoint : undefined
    const session = 'session' in target ? target.session : undefined
    return this.#s.insertDelivery.get(
      newWebhookId.delivery(),
      event.partner_id,
      event.id,
      endpoint?.id ?? null,
      session?.id ?? null,
      endpoint?.url ?? null,
      now,
      resendOf,
      iso(now),
    )!
  }

  /**
   * New deliveries of an event that was already delivered: to one registration, or to every
   * registration and collecting listen session that selects it now.
   */
  resend(event: StoredEvent, target: EndpointRow | undefined, now: number): DeliveryRow[] {
    return this.#database.transaction(() => {
      const targets: ({endpoint: EndpointRow} | {session: SessionRow})[] = []
      if (target !== undefined) {
        targets.push({endpoint: target})
      } else {
        for (const endpoint of this.endpoints(event.partner_id)) {
          if (selectsEvent(JSON.parse(endpoint.events), event.type)) targets.push({endpoint})
        }
        for (const session of this.#s.openSessionsOf.all(event.partner_id, ...horizons(now))) {
          if (selectsEvent(JSON.parse(session.events), event.type)) {
            targets.push({session})
          }
        }
      }
      return targets.map((t) => {
        const id = 'endpoint' in t ? t.endpoint.id : t.session.id
        const previous = this.#s.lastDeliveryTo.get(event.id, id, id)
        return this.#insertDelivery(event, t, previous?.id ?? null, now)
      })
    })
  }

  // Scheduling

  /**
   * HTTP deliveries due at `now`, at most `limit`, leased until `leaseUntil` so no other pass picks
   * them up. Fair between receivers (a receiver is a URL's origin, however many registrations
   * point at it): at most `capacityOf(origin)` for each, taken in turns, receivers with the fewest
   * deliveries in flight first, each receiver's oldest first. A receiver that never answers thus
   * holds only its own share, and the others' deliveries still go out.
   */
  takeDueHttp(
    now: number,
    limit: number,
    leaseUntil: number,
    capacityOf: (origin: string) => number = () => limit,
  ): DeliveryRow[] {
    if (limit <= 0) return []
    // With no registration there is nothing to lease: no transaction to begin after every request.
    const receivers = this.#receivers()
    if (receivers.size === 0) return []
    return this.#database.transaction(() => {
      const queues: {origin: string; rows: DeliveryRow[]; room: number}[] = []
      for (const [origin, ids] of receivers) {
        const room = Math.min(limit, capacityOf(origin))
        if (room <= 0) continue
        const rows = ids
          .flatMap((id) => this.#s.dueOfEndpoint.all(id, now, room))
          .sort((a, b) => (a.next_attempt_at ?? 0) - (b.next_attempt_at ?? 0) || a.seq - b.seq)
          .slice(0, room)
        if (rows.length > 0) queues.push({origin, rows, room})
      }
      queues.sort(
        (a, b) => b.room - a.room || (a.rows[0]!.next_attempt_at ?? 0) - (b.rows[0]!.next_attempt_at ?? 0),
      )
      const taken: DeliveryRow[] = []
      for (let turn = 0; taken.length < limit; turn++) {
        let any = false
        for (const q of queues) {
          const row = q.rows[turn]
          if (row === undefined || taken.length >= limit) continue
          taken.push(row)
          any = true
        }
        if (!any) break
      }
      for (const row of taken) this.#s.lease.run(leaseUntil, row.id, 'pending')
      return taken
    })
  }

  /** When the next HTTP delivery of a receiver with room (`capacityOf` > 0) falls due. */
  nextHttpDue(capacityOf: (origin: string) => number = () => 1): number | undefined {
    let next: number | undefined
    for (const [origin, ids] of this.#receivers()) {
      if (capacityOf(origin) <= 0) continue
      for (const id of ids) {
        const at = this.#s.nextOfEndpoint.get(id)!.at
        if (at !== null && (next === undefined || at < next)) next = at
      }
    }
    return next
  }

  /** Registration ids by receiver origin. */
  #receivers(): Map<string, string[]> {
    const byOrigin = new Map<string, string[]>()
    for (const {id, url} of this.#s.endpointTargets.all()) {
      const origin = receiverOf(url)
      const ids = byOrigin.get(origin)
      if (ids === undefined) byOrigin.set(origin, [id])
      else ids.push(id)
    }
    return byOrigin
  }

  /** Deliveries of a listen session due at `now`, leased like takeDueHttp. */
  takeDueForSession(sessionId: string, now: number, limit: number, leaseUntil: number): DeliveryRow[] {
    if (limit <= 0) return []
    return this.#database.transaction(() => {
      const rows = this.#s.dueSession.all(sessionId, now, limit)
      for (const row of rows) this.#s.lease.run(leaseUntil, row.id, 'pending')
      return rows
    })
  }

  nextSessionDue(sessionId: string): number | undefined {
    const at = this.#s.nextSession.get(sessionId)!.at
    return at ?? undefined
  }

  pendingForSession(sessionId: string): number {
    return Number(this.#s.pendingOfSession.get(sessionId)!.n)
  }

  delivery(id: string): DeliveryRow | undefined {
    return this.#s.deliveryById.get(id)
  }

  /**
   * Record an attempt and move the delivery on: done, retried on the schedule, given up, or (for an
   * attempt that never reached the receiver) due again at once. Answers the delivery's new state,
   * or undefined when it was no longer pending (a late or repeated answer).
   */
  recordAttempt(deliveryId: string, outcome: AttemptOutcome, now: number): DeliveryRow['state'] | undefined {
    return this.#database.transaction(() => {
      const row = this.delivery(deliveryId)
      if (row === undefined || row.state !== 'pending') return undefined
      const attempt = row.attempts + 1
      this.#s.insertAttempt.run(
        deliveryId,
        attempt,
        outcome.via,
        iso(outcome.startedAt),
        outcome.signatureT,
        outcome.status,
        outcome.durationMs,
        outcome.error,
        outcome.responseBody?.slice(0, RESPONSE_BODY_LIMIT) ?? null,
      )
      let state: DeliveryRow['state'] = 'pending'
      let failures = row.failures
      let next: number | null = now
      if (outcome.succeeded) {
        state = 'succeeded'
        next = null
      } else if (outcome.countsAsFailure) {
        failures++
        next = nextAttemptAt(this.#schedule, failures, now) ?? null
        if (next === null) state = 'failed'
      }
      this.#s.settle.run(
        state,
        attempt,
        failures,
        next,
        outcome.status,
        outcome.succeeded ? null : outcome.error,
        state === 'pending' ? null : iso(now),
        deliveryId,
      )
      return state
    })
  }

  /** Give a delivery up without an attempt (its registration or event is gone). */
  abandon(deliveryId: string, reason: string, now: number): void {
    this.#s.abandon.run(reason, iso(now), deliveryId)
  }

  // The delivery log

  /** The newest `limit` deliveries of an event, oldest first. */
  deliveriesOf(eventId: string, limit = EVENT_DELIVERIES_SHOWN): DeliveryRow[] {
    return this.#s.deliveriesOfEvent.all(eventId, limit)
  }

  attemptsOf(deliveryId: string): AttemptRow[] {
    return this.#s.attemptsOf.all(deliveryId)
  }

  deliveryCounts(eventId: string): {total: number; pending: number; succeeded: number; failed: number} {
    const counts = {total: 0, pending: 0, succeeded: 0, failed: 0}
    for (const {state, n} of this.#s.countsOfEvent.all(eventId)) {
      counts[state] = Number(n)
      counts.total += Number(n)
    }
    return counts
  }
}
