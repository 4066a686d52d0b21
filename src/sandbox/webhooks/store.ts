import {ALL_EVENTS, selectsEvent} from '../../contract/webhooks.js'
import type {RetrySchedule} from '../context.js'
import {ApiError} from '../http/api-error.js'
import type {Database} from '../storage/database.js'
import {countShape} from '../storage/meta-shapes.js'
import type {StoredEvent} from './envelope.js'
import {
  type AttemptOutcome,
  type AttemptRow,
  type DeliveryPlanner,
  type DeliveryRow,
  type DeliveryTarget,
  type EndpointRow,
  fanOutTo,
  horizons,
  insertDelivery,
  iso,
  newSigningSecret,
  newWebhookId,
  RESPONSE_BODY_LIMIT,
  receiverOf,
  type SessionRow,
  sessionIsOpen,
  statements,
  type Target,
} from './rows.js'
import {nextAttemptAt} from './schedule.js'

/** Open listen sessions a partner may have at once. */
export const LISTEN_SESSION_CAP = 100
/** Webhook registrations a partner may have. */
export const WEBHOOK_CAP = 100
/** Deliveries an event's detail shows (the newest); resends can make more. */
export const EVENT_DELIVERIES_SHOWN = 100
const FANOUT_CURSOR = 'webhooks_fanout_seq'
const FANOUT_BATCH = 500

/** The webhook tables: registrations, listen sessions, deliveries and their attempts. Synchronous. */
export class WebhookStore {
  readonly #database: Database
  readonly #schedule: RetrySchedule
  /** Every wait of the schedule multiplied by this (SandboxOptions.webhookWaitScale). */
  readonly #waitScale: number
  readonly #s: ReturnType<typeof statements>

  constructor(database: Database, schedule: RetrySchedule, waitScale = 1) {
    this.#database = database
    this.#schedule = schedule
    this.#waitScale = waitScale
    this.#s = statements(database)
    // Start delivering from the events recorded after webhooks first ran on this data file.
    database.metaValue(
      FANOUT_CURSOR,
      () => String(this.maxEventSeq()),
      countShape(Number.MAX_SAFE_INTEGER, 'an event sequence number'),
    )
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
  fanOut(now: number, planOf?: DeliveryPlanner): number {
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
        const targetsOf = new Map<string, Target[]>()
        for (const event of events) {
          let targets = targetsOf.get(event.partner_id)
          if (targets === undefined) {
            targets = this.#targets(event.partner_id, now)
            targetsOf.set(event.partner_id, targets)
          }
          for (const {target, from, events: selectors} of targets) {
            if (from >= event.seq || !selectsEvent(selectors, event.type)) continue
            created += fanOutTo(this.#s, event, target, now, planOf)
          }
        }
        const last = events.at(-1)
        if (last !== undefined) this.#s.saveCursor.run(FANOUT_CURSOR, String(last.seq))
        return events.length
      })
      if (batch < FANOUT_BATCH) return created
    }
  }

  /** The partner's registrations, then its open listen sessions, with the events each selects. */
  #targets(partnerId: string, now: number): Target[] {
    const of = <R extends {from_event_seq: number; events: string}>(row: R) => ({
      from: row.from_event_seq,
      events: JSON.parse(row.events) as string[],
    })
    return [
      ...this.#s.endpointsOf.all(partnerId).map((endpoint) => ({target: {endpoint}, ...of(endpoint)})),
      ...this.#s.openSessionsOf
        .all(partnerId, ...horizons(now))
        .map((session) => ({target: {session}, ...of(session)})),
    ]
  }

  /**
   * New deliveries of an event that was already delivered: to one registration, or to every
   * registration and collecting listen session that selects it now.
   */
  resend(event: StoredEvent, target: EndpointRow | undefined, now: number): DeliveryRow[] {
    return this.#database.transaction(() => {
      const targets: DeliveryTarget[] =
        target !== undefined
          ? [{endpoint: target}]
          : this.#targets(event.partner_id, now)
              .filter((t) => selectsEvent(t.events, event.type))
              .map((t) => t.target)
      return targets.map((t) => {
        const id = 'endpoint' in t ? t.endpoint.id : t.session.id
        const previous = this.#s.lastDeliveryTo.get(event.id, id, id)
        return insertDelivery(this.#s, event, t, previous?.id ?? null, now)
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
        outcome.injected ?? null,
      )
      let state: DeliveryRow['state'] = 'pending'
      let failures = row.failures
      let next: number | null = now
      if (outcome.succeeded) {
        state = 'succeeded'
        next = null
      } else if (outcome.countsAsFailure) {
        failures++
        const at = nextAttemptAt(this.#schedule, failures, now)
        next = at === undefined ? null : now + Math.round((at - now) * this.#waitScale)
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

  /** Make a leased delivery due again at once, unattempted (held back by a fault for a link that dropped). */
  dueNow(deliveryId: string, now: number): void {
    this.#s.lease.run(now, deliveryId, 'pending')
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
