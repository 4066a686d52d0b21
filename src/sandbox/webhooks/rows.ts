import {randomBytes} from 'node:crypto'
import type {Database} from '../storage/database.js'
import {randomHex} from '../storage/ids.js'
import type {StoredEvent} from './envelope.js'

/** The rows of the webhook tables, the statements over them, and when a listen session is open. */

/** How much of a receiver's answer is kept with an attempt. */
export const RESPONSE_BODY_LIMIT = 2048
/** How much of an answer that is not a 2xx is kept: enough to see what went wrong, not a page. */
export const ERROR_RESPONSE_BODY_LIMIT = 256

export const newWebhookId = {
  endpoint: () => `whk_${randomHex(12)}`,
  delivery: () => `dlv_${randomHex(12)}`,
  session: () => `lsn_${randomHex(12)}`,
}

/** A fresh signing secret: `whsec_` and 32 base64url characters (192 random bits). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`
}

export const iso = (ms: number) => new Date(ms).toISOString()

/** Where a delivery goes: a registration's URL, or a listen session. */
export type DeliveryTarget = {endpoint: EndpointRow} | {session: SessionRow}

/** A target of fan-out, with the first event it takes (after `from`) and its selectors. */
export interface Target {
  target: DeliveryTarget
  from: number
  events: readonly string[]
}

/** The secrets a delivery to `row` is signed with at `now`: the current one, then the old one. */
export function signingSecrets(row: EndpointRow, now: number): string[] {
  const previous =
    row.previous_secret !== null && (row.previous_secret_expires_at ?? 0) > now ? [row.previous_secret] : []
  return [row.secret, ...previous]
}

/** The receiver a URL delivers to, for fair scheduling: its origin (scheme, host and port). */
export function receiverOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** How long a listen session keeps collecting deliveries after its listener was last connected. */
export const LISTEN_REPLAY_WINDOW_MS = 60 * 60 * 1000
/** How long a session no listener has connected to yet collects: a ticket's life. */
export const LISTEN_PRECONNECT_MS = 60 * 1000
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
export const OPEN_SESSION = `ended_at IS NULL AND last_seen_at >= CASE WHEN connected_at IS NULL THEN ? ELSE ? END`
export const horizons = (now: number): [number, number] => [
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
  /** What a delivery fault did to it: `duplicate of dlv_…`, `delayed 3000 ms`. */
  injected: string | null
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
  injected: string | null
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
  /** What a delivery fault did to this attempt: `fail-first 1 of 2`, `tampered signature`, `reordered`. */
  injected?: string | null
}

/** What fan-out reads of an event. */
export type FanOutEvent = Pick<StoredEvent, 'seq' | 'id' | 'type' | 'partner_id'>

/** Every statement of the store, prepared once, each with the type of its rows. */
// Long: a list, one entry per statement.
export function statements(database: Database) {
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
      `INSERT INTO webhook_deliveries (id, partner_id, event_id, endpoint_id, session_id, url, state, next_attempt_at, resend_of, injected, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) RETURNING *`,
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
      `INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, via, started_at, signature_t, status, duration_ms, error, response_body, injected)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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

type Statements = ReturnType<typeof statements>

/** A new pending delivery of an event to a target, due at `fault.at` (now, unless a fault delays it). */
export function insertDelivery(
  s: Statements,
  event: FanOutEvent,
  target: DeliveryTarget,
  resendOf: string | null,
  now: number,
  fault: {at: number; injected: string | null} = {at: now, injected: null},
): DeliveryRow {
  const endpoint = 'endpoint' in target ? target.endpoint : undefined
  const session = 'session' in target ? target.session : undefined
  return s.insertDelivery.get(
    newWebhookId.delivery(),
    event.partner_id,
    event.id,
    endpoint?.id ?? null,
    session?.id ?? null,
    endpoint?.url ?? null,
    fault.at,
    resendOf,
    fault.injected,
    iso(now),
  )!
}

/** What a delivery fault plans for a new delivery of a partner's target (a registration or session id). */
export type DeliveryPlanner = (
  partnerId: string,
  targetId: string,
) => {delayMs: number; duplicate: boolean} | undefined

/**
 * An event's delivery to one target, as its delivery fault plans it (docs/webhooks.md#delivery-faults):
 * held back by a delay, and sent a second time as a duplicate. Answers how many deliveries it made.
 */
export function fanOutTo(
  s: Statements,
  event: FanOutEvent,
  target: DeliveryTarget,
  now: number,
  planOf?: DeliveryPlanner,
): number {
  const targetId = 'endpoint' in target ? target.endpoint.id : target.session.id
  const plan = planOf?.(event.partner_id, targetId)
  const delayed = plan !== undefined && plan.delayMs > 0 ? `delayed ${plan.delayMs} ms` : null
  const at = now + (plan?.delayMs ?? 0)
  const first = insertDelivery(s, event, target, null, now, {at, injected: delayed})
  if (!plan?.duplicate) return 1
  const duplicate = [`duplicate of ${first.id}`, delayed].filter((n) => n !== null).join(', ')
  insertDelivery(s, event, target, null, now, {at, injected: duplicate})
  return 2
}
