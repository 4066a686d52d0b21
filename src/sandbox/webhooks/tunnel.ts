import type {WebSocket} from 'ws'
import {unixSeconds} from '../../contract/webhook-signing/signature.js'
import {LISTEN_CLOSE, type ListenAckFrame, ListenClientFrameSchema} from '../../contract/webhooks.js'
import {randomHex} from '../storage/ids.js'
import {type AttemptSources, prepareAttempt} from './attempt.js'
import type {DeliveryFaults} from './delivery-faults.js'
import type {DeliveryRow, SessionRow} from './rows.js'
import type {WebhookStore} from './store.js'

/** The sandbox pings every listener this often; a link silent for three intervals is dead. */
export const HEARTBEAT_SECONDS = 5
/** A delivery pushed to a listener and not acknowledged within this time counts as failed. */
export const ACK_TIMEOUT_MS = 30_000
/** Deliveries pushed to one listener and not yet acknowledged, at most. */
export const LISTEN_WINDOW = 100
const TICKET_TTL_MS = 60_000
const OPEN = 1

interface InFlight {
  startedAt: number
  signatureT: number
  timer: NodeJS.Timeout
  /** What a delivery fault did to the attempt, for its log line. */
  injected: string | null
}

interface Connection {
  session: SessionRow
  socket: WebSocket
  inflight: Map<string, InFlight>
  lastHeard: number
  lastTouched: number
  heartbeat: NodeJS.Timeout
  closed: boolean
}

/**
 * The sandbox end of `payctl webhooks listen`: hands out tickets, holds one WebSocket per listen
 * session, pushes the session's due deliveries over it and turns acknowledgements into attempts.
 */
export class ListenHub {
  readonly #attempts: AttemptSources
  readonly #store: WebhookStore
  readonly #nudge: () => void
  readonly #faults: DeliveryFaults
  readonly #tickets = new Map<string, {sessionId: string; expiresAt: number}>()
  readonly #connections = new Map<string, Connection>()
  #stopped = false

  constructor(attempts: AttemptSources, nudge: () => void) {
    this.#attempts = attempts
    this.#store = attempts.store
    this.#faults = attempts.faults
    this.#nudge = nudge
  }

  isConnected(sessionId: string): boolean {
    return this.#connections.has(sessionId)
  }

  /** A single-use ticket that lets the next WebSocket in for `sessionId`. */
  issueTicket(sessionId: string, now: number): string {
    for (const [ticket, entry] of this.#tickets) if (entry.expiresAt < now) this.#tickets.delete(ticket)
    const ticket = `lst_${randomHex(16)}`
    this.#tickets.set(ticket, {sessionId, expiresAt: now + TICKET_TTL_MS})
    return ticket
  }

  /** Take over a freshly upgraded socket for `sessionId`, if its ticket lets it in. */
  accept(socket: WebSocket, sessionId: string, ticket: string | undefined): void {
    const now = Date.now()
    const entry = ticket === undefined ? undefined : this.#tickets.get(ticket)
    if (ticket !== undefined) this.#tickets.delete(ticket)
    const session = this.#store.session(sessionId)
    if (entry === undefined || entry.sessionId !== sessionId || entry.expiresAt < now || !session) {
      socket.close(LISTEN_CLOSE.badTicket, 'unknown or expired ticket: open the listen session again')
      return
    }
    if (session.ended_at !== null) {
      socket.close(LISTEN_CLOSE.ended, 'the listen session was ended')
      return
    }
    const previous = this.#connections.get(sessionId)
    if (previous !== undefined) {
      this.#drop(previous)
      previous.socket.close(LISTEN_CLOSE.replaced, 'another listener took over this session')
    }
    const conn: Connection = {
      session,
      socket,
      inflight: new Map(),
      lastHeard: now,
      lastTouched: now,
      closed: false,
      heartbeat: setInterval(() => this.#beat(conn), HEARTBEAT_SECONDS * 1000),
    }
    this.#connections.set(sessionId, conn)
    this.#store.connectSession(sessionId, now)
    socket.on('message', (data) => this.#onMessage(conn, String(data)))
    socket.on('close', () => this.#drop(conn))
    // A socket error is followed by 'close', which does the cleaning up.
    socket.on('error', () => undefined)
    this.#send(conn, {
      type: 'ready',
      sessionId,
      pending: this.#store.pendingForSession(sessionId),
      heartbeatSeconds: HEARTBEAT_SECONDS,
    })
    this.#nudge()
  }

  /** Close the link of a session that was ended; its listener stops rather than reconnect. */
  end(sessionId: string): void {
    for (const [ticket, entry] of this.#tickets)
      if (entry.sessionId === sessionId) this.#tickets.delete(ticket)
    const conn = this.#connections.get(sessionId)
    if (conn === undefined) return
    this.#drop(conn)
    conn.socket.close(LISTEN_CLOSE.ended, 'the listen session was ended')
  }

  /** Close every link of a deleted partner: its sessions are gone, so its listeners stop. */
  endPartner(partnerId: string): void {
    for (const conn of [...this.#connections.values()]) {
      if (conn.session.partner_id === partnerId) this.end(conn.session.id)
    }
  }

  /** Push every connected session's due deliveries, up to its window. */
  push(now: number): void {
    for (const conn of this.#connections.values()) {
      if (conn.closed || conn.socket.readyState !== OPEN) continue
      const room = LISTEN_WINDOW - conn.inflight.size
      // The lease outlasts the ack timeout, which decides first.
      const rows = this.#store.takeDueForSession(conn.session.id, now, room, now + ACK_TIMEOUT_MS + 5_000)
      for (const row of rows) {
        // A fault that reorders holds first attempts back; a link gone meanwhile gets them again later.
        const held = this.#faults.hold(row, conn.session.id, (released) => {
          for (const r of released) {
            if (conn.closed) this.#store.dueNow(r.id, Date.now())
            else this.#deliver(conn, r, Date.now(), true)
          }
        })
        if (!held) this.#deliver(conn, row, now)
      }
    }
  }

  /** The earliest time a connected session has a delivery due (sessions with a full window excluded). */
  nextDue(): number | undefined {
    let next: number | undefined
    for (const conn of this.#connections.values()) {
      if (conn.inflight.size >= LISTEN_WINDOW) continue
      const at = this.#store.nextSessionDue(conn.session.id)
      if (at !== undefined && (next === undefined || at < next)) next = at
    }
    return next
  }

  /**
   * Close every link with 1001 (going away), recording what was in flight so it is sent again
   * after a restart; listeners reconnect.
   */
  stop(): void {
    this.#stopped = true
    for (const conn of [...this.#connections.values()]) {
      this.#drop(conn)
      conn.socket.close(1001, 'the sandbox is shutting down')
    }
  }

  /** One attempt over the link: pushed now, recorded when its acknowledgement comes or does not. */
  #deliver(conn: Connection, row: DeliveryRow, now: number, reordered = false): void {
    const target = {id: conn.session.id, secrets: [conn.session.secret]}
    const out = prepareAttempt(this.#attempts, row, target, now, reordered)
    if (out === 'failed on purpose') this.#nudge()
    if (typeof out === 'string') return
    const {event, signatureT, injected} = out
    const timer = setTimeout(() => this.#ackTimedOut(conn, row.id), ACK_TIMEOUT_MS)
    conn.inflight.set(row.id, {startedAt: now, signatureT, timer, injected})
    this.#send(conn, {
      type: 'delivery',
      deliveryId: row.id,
      eventId: event.id,
      event: event.type,
      attempt: out.attempt,
      createdAt: event.created_at,
      headers: out.headers,
      body: Buffer.from(out.body, 'utf8').toString('base64'),
      // The listener marks a tampered delivery as such, and forwards it as it came.
      ...(injected === null ? {} : {injected: injected.split(', ')}),
    })
  }

  #send(conn: Connection, frame: Record<string, unknown>): void {
    if (conn.socket.readyState === OPEN) conn.socket.send(JSON.stringify(frame))
  }

  #onMessage(conn: Connection, text: string): void {
    if (conn.closed) return
    conn.lastHeard = Date.now()
    let frame: ReturnType<typeof ListenClientFrameSchema.parse>
    try {
      frame = ListenClientFrameSchema.parse(JSON.parse(text))
    } catch {
      conn.socket.close(LISTEN_CLOSE.protocol, 'unreadable frame')
      return
    }
    if (frame.type === 'ping') this.#send(conn, {type: 'pong'})
    else if (frame.type === 'ack') this.#onAck(conn, frame)
  }

  #onAck(conn: Connection, ack: ListenAckFrame): void {
    const now = Date.now()
    const flight = conn.inflight.get(ack.deliveryId)
    if (flight !== undefined) {
      clearTimeout(flight.timer)
      conn.inflight.delete(ack.deliveryId)
    }
    const row = this.#store.delivery(ack.deliveryId)
    if (row === undefined || row.session_id !== conn.session.id) return
    const status = ack.status ?? null
    const succeeded = !ack.forwarded || (status !== null && status >= 200 && status < 300)
    this.#store.recordAttempt(
      row.id,
      {
        via: 'listen',
        startedAt: flight?.startedAt ?? now,
        signatureT: flight?.signatureT ?? unixSeconds(now),
        status,
        durationMs: ack.durationMs ?? null,
        error: succeeded ? null : (ack.error ?? `HTTP ${status}`),
        responseBody: ack.body ?? null,
        succeeded,
        countsAsFailure: true,
        injected: flight?.injected ?? null,
      },
      now,
    )
    this.#nudge()
  }

  #ackTimedOut(conn: Connection, deliveryId: string): void {
    const flight = conn.inflight.get(deliveryId)
    if (flight === undefined || this.#stopped) return
    conn.inflight.delete(deliveryId)
    this.#unacknowledged(deliveryId, flight, 'timed out', Date.now())
    this.#nudge()
  }

  /**
   * Record an attempt pushed over a link and never acknowledged as failed. One whose link dropped
   * does not count against the retry schedule: it goes out again as soon as the listener is back.
   */
  #unacknowledged(
    deliveryId: string,
    flight: InFlight,
    why: 'timed out' | 'link dropped',
    now: number,
  ): void {
    const dropped = why === 'link dropped'
    this.#store.recordAttempt(
      deliveryId,
      {
        via: 'listen',
        startedAt: flight.startedAt,
        signatureT: flight.signatureT,
        status: null,
        durationMs: null,
        error: dropped
          ? 'the listen link dropped before the CLI acknowledged it'
          : `no acknowledgement within ${ACK_TIMEOUT_MS / 1000} s`,
        responseBody: null,
        succeeded: false,
        countsAsFailure: !dropped,
        injected: flight.injected,
      },
      now,
    )
  }

  #beat(conn: Connection): void {
    const now = Date.now()
    if (now - conn.lastHeard > 3 * HEARTBEAT_SECONDS * 1000) {
      // Nothing heard for three heartbeats: the listener is gone (sleeping laptop, dead network).
      this.#drop(conn)
      conn.socket.terminate()
      return
    }
    this.#send(conn, {type: 'ping'})
    if (now - conn.lastTouched >= HEARTBEAT_SECONDS * 1000) {
      conn.lastTouched = now
      this.#store.touchSession(conn.session.id, now)
    }
  }

  /**
   * Forget a link. What was pushed over it and not acknowledged is due again at once (without
   * using up the retry schedule): it goes out as soon as the listener is back.
   */
  #drop(conn: Connection): void {
    if (conn.closed) return
    conn.closed = true
    clearInterval(conn.heartbeat)
    if (this.#connections.get(conn.session.id) === conn) this.#connections.delete(conn.session.id)
    const now = Date.now()
    for (const [deliveryId, flight] of conn.inflight) {
      clearTimeout(flight.timer)
      this.#unacknowledged(deliveryId, flight, 'link dropped', now)
    }
    conn.inflight.clear()
    this.#store.touchSession(conn.session.id, now)
    if (!this.#stopped) this.#nudge()
  }
}
