import websocket from '@fastify/websocket'
import type {FastifyInstance} from 'fastify'
import type {SandboxContext} from '../context.js'
import {onEventRecorded} from '../event-log.js'
import {type AttemptSources, prepareAttempt} from './attempt.js'
import {DeliveryFaults} from './delivery-faults.js'
import {DELIVERY_TIMEOUT_MS, HttpPoster} from './http-delivery.js'
import {type DeliveryRow, receiverOf, signingSecrets} from './rows.js'
import {WebhookStore} from './store.js'
import {ListenHub} from './tunnel.js'
import {displayUrl} from './url-policy.js'

/** HTTP deliveries in flight at once, over all registrations. */
const HTTP_CONCURRENCY = 64
/**
 * HTTP deliveries in flight at once to one receiver (a URL's origin, however many registrations
 * name it): a receiver that never answers holds this many slots for the delivery timeout, and
 * no more.
 */
const RECEIVER_CONCURRENCY = 4
/**
 * Even without a nudge the scheduler looks for work this often, so events written by code that
 * bypasses EventLog.record are still delivered.
 */
const POLL_MS = 1_000
const SWEEP_MS = 30_000
const SOCKET_MAX_PAYLOAD = 1024 * 1024

/**
 * Webhook delivery for one running sandbox: fans recorded events out into deliveries, POSTs them to
 * registered URLs, pushes them to `webhooks listen` sessions, and retries on the schedule.
 */
export class WebhookService {
  readonly store: WebhookStore
  /** The delivery faults of registrations and listen sessions (docs/webhooks.md#delivery-faults). */
  readonly faults: DeliveryFaults
  readonly #hub: ListenHub
  readonly #poster: HttpPoster
  readonly #attempts: AttemptSources
  readonly #log: ((line: string) => void) | undefined
  #httpInFlight = 0
  /** Deliveries in flight by receiver origin. */
  readonly #inFlightTo = new Map<string, number>()
  readonly #roomFor = (origin: string) => RECEIVER_CONCURRENCY - (this.#inFlightTo.get(origin) ?? 0)
  #scheduled = false
  #timer: NodeJS.Timeout | undefined
  #lastSweep = 0
  #started = false
  #stopped = false
  #unsubscribe: (() => void) | undefined

  constructor(
    private readonly ctx: Pick<SandboxContext, 'database' | 'settings' | 'faults'>,
    log?: (line: string) => void,
  ) {
    const scale = ctx.settings.webhookWaitScale ?? 1
    this.store = new WebhookStore(ctx.database, ctx.settings.webhookRetries, scale)
    this.faults = new DeliveryFaults(ctx.faults, scale)
    this.#attempts = {store: this.store, faults: this.faults, version: ctx.settings.version}
    this.#poster = new HttpPoster({exposed: ctx.settings.listensBeyondLoopback === true})
    this.#log = log
    this.#hub = new ListenHub(this.#attempts, () => this.nudge())
  }

  /** Serve the listen WebSocket on `app`, and deliver while `app` is ready until it closes. */
  attach(app: FastifyInstance): void {
    void app.register(websocket, {options: {maxPayload: SOCKET_MAX_PAYLOAD}})
    void app.register(async (scope) => {
      scope.get('/v1/webhooks/listen-sessions/:id/socket', {websocket: true}, (socket, request) => {
        const {id} = request.params as {id: string}
        const {ticket} = request.query as {ticket?: string}
        this.#hub.accept(socket, id, ticket)
      })
    })
    app.addHook('onReady', async () => this.start())
    // Before @fastify/websocket's own preClose, which closes sockets without saying why.
    app.addHook('preClose', async () => this.stop())
  }

  start(): void {
    if (this.#started) return
    this.#started = true
    this.#unsubscribe = onEventRecorded(this.ctx.database, () => this.nudge())
    this.nudge()
  }

  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    this.#unsubscribe?.()
    clearTimeout(this.#timer)
    this.#hub.stop()
    this.faults.stop()
    await this.#poster.close()
  }

  /** Whether a `webhooks listen` session has its listener connected now. */
  readonly isConnected = (sessionId: string): boolean => this.#hub.isConnected(sessionId)

  /** A one-use ticket with which the session's listener opens its socket. */
  issueTicket(sessionId: string, now: number): string {
    return this.#hub.issueTicket(sessionId, now)
  }

  /** Look for work soon: once the current synchronous work (and its transaction) is done. */
  nudge(): void {
    if (this.#scheduled || this.#stopped || !this.#started) return
    this.#scheduled = true
    setImmediate(() => this.#pump())
  }

  /** Close the listeners of a deleted partner (its sessions' rows went with it). */
  endPartner(partnerId: string): void {
    this.#hub.endPartner(partnerId)
  }

  /** End a partner's listen session: it collects nothing more and its listener is told so. */
  endSession(partnerId: string, id: string, now: number): boolean {
    if (!this.store.endSession(partnerId, id, now)) return false
    this.ctx.faults.removeTarget(partnerId, id)
    this.#hub.end(id)
    return true
  }

  #pump(): void {
    this.#scheduled = false
    if (this.#stopped) return
    const now = Date.now()
    try {
      // Deliver only committed events: a group commit still open could yet fail.
      this.ctx.database.flush()
      this.store.fanOut(now, this.faults.plan)
      if (now - this.#lastSweep >= SWEEP_MS) {
        this.#lastSweep = now
        this.store.expireAbandonedSessions((id) => this.#hub.isConnected(id), now)
      }
      const due = this.store.takeDueHttp(
        now,
        HTTP_CONCURRENCY - this.#httpInFlight,
        now + DELIVERY_TIMEOUT_MS + 5_000,
        this.#roomFor,
      )
      for (const row of due) {
        // A fault that reorders holds first attempts back, and lets them go shuffled.
        const held = this.faults.hold(row, row.endpoint_id ?? '', (rows) => {
          for (const r of rows) void this.#deliverHttp(r, true)
        })
        if (!held) void this.#deliverHttp(row)
      }
      this.#hub.push(now)
    } catch (err) {
      this.#log?.(`webhooks: scheduler error: ${String(err)}`)
    }
    this.#arm(now)
  }

  /** Sleep until the next delivery falls due, or the poll interval, whichever comes first. */
  #arm(now: number): void {
    let next = now + POLL_MS
    if (this.#httpInFlight < HTTP_CONCURRENCY)
      next = Math.min(next, this.store.nextHttpDue(this.#roomFor) ?? next)
    next = Math.min(next, this.#hub.nextDue() ?? next)
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => this.nudge(), Math.max(0, next - Date.now()))
    this.#timer.unref()
  }

  /** One attempt over HTTP, from lease to record, with its slot accounting around it. */
  async #deliverHttp(row: DeliveryRow, reordered = false): Promise<void> {
    // Counted against the receiver the row was taken for, even if its registration changes meanwhile.
    const receiver =
      row.endpoint_id === null ? '' : receiverOf(this.store.endpointById(row.endpoint_id)?.url ?? '')
    this.#httpInFlight++
    this.#inFlightTo.set(receiver, (this.#inFlightTo.get(receiver) ?? 0) + 1)
    try {
      const startedAt = Date.now()
      const endpoint = row.endpoint_id === null ? undefined : this.store.endpointById(row.endpoint_id)
      const target = endpoint && {id: endpoint.id, secrets: signingSecrets(endpoint, startedAt)}
      const out = prepareAttempt(this.#attempts, row, target, startedAt, reordered)
      // Nothing to send without a registration (prepareAttempt abandons the delivery then).
      if (typeof out === 'string' || endpoint === undefined) return
      const {event, attempt, signatureT} = out
      const result = await this.#poster.post(endpoint.url, out.headers, out.body)
      if (this.#stopped) return
      const succeeded = result.error === null
      const state = this.store.recordAttempt(
        row.id,
        {
          via: 'http',
          startedAt,
          signatureT,
          status: result.status,
          durationMs: result.durationMs,
          error: result.error,
          responseBody: result.responseBody,
          succeeded,
          countsAsFailure: true,
          injected: out.injected,
        },
        Date.now(),
      )
      this.#log?.(
        `webhook ${event.type} ${event.id} → ${displayUrl(endpoint.url)} attempt ${attempt}: ${result.error ?? result.status} ${result.durationMs}ms${state === 'failed' ? ' (giving up)' : state === 'pending' ? ' (will retry)' : ''}`,
      )
    } finally {
      this.#httpInFlight--
      const left = (this.#inFlightTo.get(receiver) ?? 1) - 1
      if (left > 0) this.#inFlightTo.set(receiver, left)
      else this.#inFlightTo.delete(receiver)
      this.nudge()
    }
  }
}
