import type {z} from 'zod'
import type {DeliveryFaultSettings} from '../../contract/faults.js'
import {SIGNATURE_HEADER, verifySignature} from '../../contract/webhook-signing/signature.js'
import {
  LISTEN_CLOSE,
  type ListenAckFrame,
  type ListenDeliveryFrame,
  ListenDeliveryFrameSchema,
  ListenReadyFrameSchema,
  type ListenSession,
  selectsEvent,
} from '../../contract/webhooks.js'
import type {PayctlClient} from '../client.js'
import {PayctlError} from '../errors.js'
import {backoffDelay, Connections} from '../transport.js'
import {closeForwarding} from './forward.js'
import {closeReason, describeFailure, listenFailure, retryable} from './listen-failures.js'
import {openListenSocket} from './listen-socket.js'
import {type DeliveryOutcome, type ListenState, settles} from './listen-state.js'
import {Forwarder, type ForwardRoute, type ForwardTimings} from './routing.js'

/** What a listen session reports, in order, to whoever renders it; it knows nothing of sockets. */
export type ListenEvent =
  | {
      type: 'ready'
      time: string
      sessionId: string
      secret: string
      events: string[]
      /** null when deliveries are only reported. */
      forwardTo: string | null
      pending: number
      resumed: boolean
    }
  | {type: 'reconnected'; time: string; sessionId: string; pending: number; secretChanged: boolean}
  | {
      type: 'reconnecting'
      time: string
      reason: string
      attempt: number
      delayMs: number
      /** Whether the link that ended had worked (false: it could not be opened). */
      wasLinked: boolean
    }
  | {
      type: 'event'
      time: string
      eventId: string
      event: string
      deliveryId: string
      attempt: number
      createdAt: string
      signature: {valid: true} | {valid: false; reason: string; message: string}
      injected?: string[] // what a delivery fault did to it (`tampered signature`): forwarded as it came
    }
  | ({
      type: 'forward'
      time: string
      eventId: string
      event: string
      deliveryId: string
      attempt: number
      url: string
      ok: boolean
    } & DeliveryOutcome)
  | {type: 'duplicate'; time: string; eventId: string; deliveryId: string; attempt: number}
  | {
      /** Not selected by the listener's events (sent before they changed): acknowledged, not forwarded. */
      type: 'skipped'
      time: string
      eventId: string
      event: string
      deliveryId: string
      attempt: number
    }

/** With ForwardTimings: how long a forward may take before it fails, and before it stalls its target. */
export interface ListenOptions extends ForwardTimings {
  client: PayctlClient
  /**
   * The connections the WebSocket goes through (proxy, NO_PROXY, PAYCTL_CA_FILE, as the client's
   * requests): a command's own; without them, the listener's, from process.env, closed when it stops.
   */
  connections?: Connections | undefined
  state: ListenState
  /** Event selectors (`wallet.created`, `bnplsvc.*`, `*`). */
  events: string[]
  faults?: DeliveryFaultSettings | null // the session's delivery faults: null removes them, absent keeps them
  /** Where to POST each delivery no route takes (routing.ts); without it, those are only reported. */
  forwardTo?: string | undefined
  routes?: ForwardRoute[] | undefined
  headers?: Record<string, string> | undefined
  /** Fail instead of reconnecting when the link drops (for supervisors). */
  exitOnFailure?: boolean
  /** Abort to stop: deliveries in hand are finished and acknowledged, then the link is closed. */
  signal: AbortSignal
  /**
   * Reports each event. A delivery is forwarded and acknowledged only once its `event` report
   * returned (or its promise resolved); a report that throws or rejects stops the listener, whose
   * run() then rejects with that error (a PayctlError as it is, anything else as LISTEN_FAILED).
   */
  onEvent: (event: ListenEvent) => void | Promise<void>
}

export interface ListenSummary {
  sessionId: string | undefined
  received: number
  forwarded: number
  failed: number
}

/** How long a stopping listener waits for the forwards in hand. */
const DRAIN_MS = 10_000
/** How long a stopping listener tries to end its session. */
const END_MS = 2_000
/** How long a freshly opened socket may take to say `ready`. */
const READY_TIMEOUT_MS = 10_000

const now = () => new Date().toISOString()
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, {once: true})
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })

/** The WebSocket URL of a session: the profile's base URL with ws(s), the session's path and ticket. */
export function socketUrl(baseUrl: string, session: Pick<ListenSession, 'socketPath' | 'ticket'>): string {
  const url = new URL(session.socketPath, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  url.searchParams.set('ticket', session.ticket)
  return url.toString()
}

type ReadyFrame = z.infer<typeof ListenReadyFrameSchema>

/** A `ready` frame as the sandbox must send it; another shape means a sandbox of another version. */
function readyFrame(frame: unknown): ReadyFrame {
  const parsed = ListenReadyFrameSchema.safeParse(frame)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new PayctlError({
    kind: 'invalid_response',
    code: 'LISTEN_PROTOCOL',
    message: `the sandbox's ready frame is not one payctl understands (${issue?.path.join('.') || 'frame'}: ${issue?.message ?? 'invalid'})`,
    suggestions: ['Run a sandbox of the same payctl version: payctl sandbox start'],
  })
}

/**
 * `payctl webhooks listen`: opens the profile's listen session, holds its WebSocket, verifies each
 * delivery, forwards it, acknowledges it, and reconnects with backoff when the link drops.
 */
export class Listener {
  readonly #o: ListenOptions
  /** Aborted by the caller (a stop) or by a failure of the listener itself. */
  readonly #signal: AbortSignal
  readonly #failed = new AbortController()
  #failure: PayctlError | undefined
  #secret: string | undefined
  #socket: WebSocket | undefined
  readonly #inHand = new Map<string, Promise<void>>()
  readonly #summary: ListenSummary = {sessionId: undefined, received: 0, forwarded: 0, failed: 0}
  readonly #forwarder: Forwarder
  readonly #connections: Connections
  readonly #ownConnections: boolean

  constructor(options: ListenOptions) {
    this.#o = options
    this.#connections = options.connections ?? new Connections()
    this.#ownConnections = options.connections === undefined
    this.#forwarder = new Forwarder(options)
    this.#signal = AbortSignal.any([options.signal, this.#failed.signal])
  }

  /**
   * Run until stopped (resolves), or until something fails that reconnecting cannot mend (rejects):
   * the link with exitOnFailure, another listener taking over, a report or a journal write.
   */
  // Long: the reconnect loop and its cleanup, read top to bottom as one state machine.
  async run(): Promise<ListenSummary> {
    const signal = this.#signal
    let ready = false
    let failures = 0
    let sessionId: string | undefined
    try {
      while (!signal.aborted) {
        let reason: string
        let wasLinked = false
        try {
          const session = await this.#o.client.call('openListenSession', {
            body: {listenerKey: this.#o.state.listenerKey, events: this.#o.events, faults: this.#o.faults},
          })
          sessionId = session.id
          if (signal.aborted) break
          const socket = await openListenSocket(
            socketUrl(this.#o.client.profile.baseUrl, session),
            this.#connections,
          )
          const link = await this.#link(socket, session, ready)
          if (link.ready) {
            ready = true
            wasLinked = true
            failures = 0
          }
          if (signal.aborted) break
          if (link.code === LISTEN_CLOSE.ended) {
            throw new PayctlError({
              kind: 'api',
              code: 'LISTEN_SESSION_ENDED',
              message: `the listen session ${session.id} was ended (DELETE /v1/webhooks/listen-sessions/${session.id})`,
              suggestions: ['Run payctl webhooks listen again to start it afresh, with the same secret.'],
            })
          }
          if (link.code === LISTEN_CLOSE.replaced) {
            throw new PayctlError({
              kind: 'api',
              code: 'LISTEN_REPLACED',
              message: 'another `payctl webhooks listen` for this profile took over the session',
              suggestions: ['Stop the other listener, or use another profile (--profile NAME).'],
            })
          }
          reason = link.reason
        } catch (err) {
          if (signal.aborted) break
          if (!retryable(err)) throw err
          reason = describeFailure(err, this.#o.client.profile.baseUrl)
        }
        if (this.#o.exitOnFailure) {
          throw new PayctlError({
            kind: 'network',
            code: 'LISTEN_LINK_LOST',
            message: wasLinked
              ? `lost the listen link to ${this.#o.client.profile.baseUrl}: ${reason}`
              : `could not open the listen link to ${this.#o.client.profile.baseUrl}: ${reason}`,
            suggestions: ['Without --exit-on-failure, payctl reconnects by itself.'],
          })
        }
        const delayMs = backoffDelay(Math.min(failures, 5))
        failures++
        this.#emit({type: 'reconnecting', time: now(), reason, attempt: failures, delayMs, wasLinked})
        await sleep(delayMs, signal)
      }
    } finally {
      await this.#drain()
      this.#socket?.close(1000, 'listener stopped')
      // Stopped by its user, the listener ends its session: the sandbox collects nothing for a
      // listener that is not coming back. Lost, replaced or failed, it keeps it for a restart.
      if (this.#o.signal.aborted && this.#failure === undefined && sessionId !== undefined)
        await this.#end(sessionId)
      await closeForwarding()
      if (this.#ownConnections) await this.#connections.close()
    }
    if (this.#failure !== undefined) throw this.#failure
    return this.#summary
  }

  /** End the session, giving up quietly after END_MS (the sandbox may be gone already). */
  async #end(sessionId: string): Promise<void> {
    const ended = this.#o.client.call('endListenSession', {params: {id: sessionId}}).catch(() => undefined)
    await Promise.race([ended, new Promise((r) => setTimeout(r, END_MS).unref())])
  }

  /** The forwards in hand finished (or DRAIN_MS passed, whichever comes first). */
  #drain(): Promise<unknown> {
    return Promise.race([
      Promise.allSettled(this.#inHand.values()),
      new Promise((r) => setTimeout(r, DRAIN_MS).unref()),
    ])
  }

  /** Stop because of `err` (the first failure wins): what is in hand finishes, the link closes. */
  #fail(err: unknown): void {
    if (this.#failure !== undefined) return
    this.#failure = listenFailure(err)
    this.#failed.abort()
  }

  /** Report an event whose delivery does not wait for the report; a failure stops the listener. */
  #emit(event: ListenEvent): void {
    try {
      const reported = this.#o.onEvent(event)
      if (reported instanceof Promise) reported.catch((err: unknown) => this.#fail(err))
    } catch (err) {
      this.#fail(err)
    }
  }

  /** One WebSocket, from open to close. Resolves with why it ended and whether it ever got ready. */
  // Long: the socket's handlers share its state (ready, last heard, ended) in one closure.
  #link(
    ws: WebSocket,
    session: ListenSession,
    wasReady: boolean,
  ): Promise<{ready: boolean; code: number; reason: string}> {
    const signal = this.#signal
    return new Promise(
      // Long: the executor is the link's whole life, for the same reason.
      (resolve) => {
        let ready = false
        let lastHeard = Date.now()
        let ended = false
        const heartbeatMs = session.heartbeatSeconds * 1000
        const end = (code: number, reason: string) => {
          if (ended) return
          ended = true
          clearInterval(watchdog)
          clearTimeout(readyTimer)
          signal.removeEventListener('abort', stop)
          if (this.#socket === ws) this.#socket = undefined
          resolve({ready, code, reason})
        }
        // A sleeping laptop or a silently dead network shows up as silence: three missed heartbeats.
        const watchdog = setInterval(() => {
          if (Date.now() - lastHeard > 3 * heartbeatMs) {
            end(1006, `no heartbeat from the sandbox for ${(3 * heartbeatMs) / 1000} s`)
            ws.close()
          }
        }, heartbeatMs)
        const readyTimer = setTimeout(() => {
          if (!ready) {
            end(1006, `the sandbox did not confirm the link within ${READY_TIMEOUT_MS / 1000} s`)
            ws.close()
          }
        }, READY_TIMEOUT_MS)
        const stop = () => {
          // Finish what is in hand (its acks go over this socket), then close.
          void this.#drain().then(() => {
            ws.close(1000, 'listener stopped')
            end(1000, 'stopped')
          })
        }
        signal.addEventListener('abort', stop, {once: true})
        ws.onmessage = (message) => {
          lastHeard = Date.now()
          if (ended || signal.aborted) return
          try {
            onFrame(String(message.data))
          } catch (err) {
            this.#fail(err)
          }
        }
        const onFrame = (text: string) => {
          let frame: {type?: unknown}
          try {
            frame = JSON.parse(text) as {type?: unknown}
          } catch {
            return
          }
          if (frame.type === 'ping') {
            ws.send('{"type":"pong"}')
          } else if (frame.type === 'ready') {
            const r = readyFrame(frame)
            ready = true
            this.#linked(ws, session, r, wasReady)
          } else if (frame.type === 'delivery') {
            const parsed = ListenDeliveryFrameSchema.safeParse(frame)
            if (parsed.success) this.#receive(parsed.data)
          }
          // Unknown frame types are ignored: a newer sandbox may send more.
        }
        ws.onclose = (e) => end(e.code, closeReason(e.code, e.reason))
        // An error is always followed by a close event, which ends the link.
        ws.onerror = () => undefined
      },
    )
  }

  /** The link is ready: deliveries are acknowledged over `ws` from now on, and the user is told. */
  #linked(ws: WebSocket, session: ListenSession, r: ReadyFrame, wasReady: boolean): void {
    this.#socket = ws
    const secretChanged = this.#secret !== undefined && this.#secret !== session.secret
    this.#secret = session.secret
    this.#summary.sessionId = r.sessionId
    if (wasReady) {
      this.#emit({
        type: 'reconnected',
        time: now(),
        sessionId: r.sessionId,
        pending: r.pending,
        secretChanged,
      })
    } else {
      this.#emit({
        type: 'ready',
        time: now(),
        sessionId: r.sessionId,
        secret: session.secret,
        events: session.events,
        forwardTo: this.#o.forwardTo ?? null,
        pending: r.pending,
        resumed: session.resumed,
      })
    }
  }

  #receive(frame: ListenDeliveryFrame): void {
    const {state} = this.#o
    if (!selectsEvent(this.#o.events, frame.event)) {
      // The session's backlog from before its events changed, or an older sandbox that ignores them.
      this.#ack(frame.deliveryId, {forwarded: false})
      this.#emit({
        type: 'skipped',
        time: now(),
        eventId: frame.eventId,
        event: frame.event,
        deliveryId: frame.deliveryId,
        attempt: frame.attempt,
      })
      return
    }
    const settled = state.settled(frame.deliveryId)
    if (settled !== undefined) {
      // Handled before, but the sandbox never got the acknowledgement: acknowledge again only.
      this.#ack(frame.deliveryId, settled)
      this.#emit({
        type: 'duplicate',
        time: now(),
        eventId: frame.eventId,
        deliveryId: frame.deliveryId,
        attempt: frame.attempt,
      })
      return
    }
    // Already being forwarded (sent again after a reconnect): its acknowledgement will follow.
    if (this.#inHand.has(frame.deliveryId)) return
    // A failure (a report or the journal) stops the listener; the delivery is not acknowledged.
    const work = this.#handle(frame)
      .catch((err: unknown) => this.#fail(err))
      .finally(() => this.#inHand.delete(frame.deliveryId))
    this.#inHand.set(frame.deliveryId, work)
  }

  async #handle(frame: ListenDeliveryFrame): Promise<void> {
    const {onEvent, state} = this.#o
    this.#summary.received++
    const body = Buffer.from(frame.body, 'base64')
    const check = verifySignature(body, frame.headers[SIGNATURE_HEADER], this.#secret ?? '-')
    // Reported before it is forwarded: a delivery nobody could be told about is left to the sandbox.
    const reported = onEvent({
      type: 'event',
      time: now(),
      eventId: frame.eventId,
      event: frame.event,
      deliveryId: frame.deliveryId,
      attempt: frame.attempt,
      createdAt: frame.createdAt,
      signature: check.ok ? {valid: true} : {valid: false, reason: check.reason, message: check.message},
      ...(frame.injected === undefined ? {} : {injected: frame.injected}),
    })
    // A failed check is reported and the delivery still forwarded: the app's own check should refuse it too.
    const {target, outcome} = await this.#forwarder.deliver(frame.event, reported, frame.headers, body)
    state.record(frame.deliveryId, outcome)
    this.#ack(frame.deliveryId, outcome)
    if (target !== undefined) {
      const ok = settles(outcome)
      if (ok) this.#summary.forwarded++
      else this.#summary.failed++
      await onEvent({
        type: 'forward',
        time: now(),
        eventId: frame.eventId,
        event: frame.event,
        deliveryId: frame.deliveryId,
        attempt: frame.attempt,
        url: target,
        ok,
        ...outcome,
      })
    }
  }

  /** Acknowledge over the current link; with none, the sandbox sends the delivery again later. */
  #ack(deliveryId: string, outcome: DeliveryOutcome): void {
    const ws = this.#socket
    if (ws === undefined || ws.readyState !== WebSocket.OPEN) return
    const ack: ListenAckFrame = {
      type: 'ack',
      deliveryId,
      forwarded: outcome.forwarded,
      ...(outcome.status === undefined ? {} : {status: outcome.status}),
      ...(outcome.durationMs === undefined ? {} : {durationMs: outcome.durationMs}),
      ...(outcome.body === undefined ? {} : {body: outcome.body.slice(0, 2048)}),
      ...(outcome.error === undefined ? {} : {error: outcome.error.slice(0, 500)}),
    }
    ws.send(JSON.stringify(ack))
  }
}
