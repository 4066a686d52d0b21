import {EVENT_NAMES} from '../../contract/events/envelope.js'
import {selectsEvent, unknownEventSelector} from '../../contract/webhooks.js'
import {PayctlError, usageError} from '../errors.js'
import {FORWARD_TIMEOUT_MS, forwardDelivery} from './forward.js'
import type {DeliveryOutcome} from './listen-state.js'

/**
 * Where `webhooks listen` forwards each delivery: the first route whose pattern selects its event,
 * else `--forward-to`, else nowhere (printed only); with the extra headers on every forward. Each
 * target gets its deliveries one after another, in the order they came; targets run side by side,
 * so a slow or dead one delays only its own (docs/webhooks.md#routed-forwarding).
 */

/** A `--route PATTERN=URL`: events the pattern selects go to the URL. */
export interface ForwardRoute {
  pattern: string
  url: string
}

export interface ForwardRouting {
  /** Tried in order: the first that selects the event wins. */
  routes?: ForwardRoute[] | undefined
  /** Where the events no route selects go; without it they are only printed. */
  forwardTo?: string | undefined
  /** Added to every forward. */
  headers?: Record<string, string> | undefined
}

/** A target whose forward has gone unanswered this long is stalled: what waits for it fails at once (by default). */
export const STALLED_MS = 5_000

/** How long forwards may take: defaults FORWARD_TIMEOUT_MS and STALLED_MS (tests shorten them). */
export interface ForwardTimings {
  /** A forward not answered in full within this time fails. */
  forwardTimeoutMs?: number | undefined
  /** A forward unanswered this long stalls its target. */
  stalledMs?: number | undefined
}

/** The variables that change ForwardTimings, for tests (docs/webhooks.md#routed-forwarding). */
const FORWARD_TIMING_VARS = {
  forwardTimeoutMs: 'PAYCTL_LISTEN_FORWARD_TIMEOUT',
  stalledMs: 'PAYCTL_LISTEN_STALL_AFTER',
} as const
/** Longest either may be: past the sandbox's wait for an acknowledgement, a forward is retried anyway. */
const MAX_TIMING_MS = 30_000

/** ForwardTimings from the environment (`200ms`, `2s`); a variable not set keeps its default. */
export function forwardTimingsFrom(env: Record<string, string | undefined>): ForwardTimings {
  const timings: ForwardTimings = {}
  for (const [key, name] of Object.entries(FORWARD_TIMING_VARS)) {
    const text = env[name]
    if (text === undefined || text === '') continue
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/i.exec(text)
    const ms = m === null ? Number.NaN : Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 's' ? 1000 : 1))
    if (!(ms >= 1 && ms <= MAX_TIMING_MS)) {
      throw usageError(
        `${name} "${text}" is not a wait from 1ms to ${MAX_TIMING_MS / 1000}s (e.g. 200ms or 2s)`,
        'INVALID_ENV',
      )
    }
    timings[key as keyof ForwardTimings] = ms
  }
  return timings
}

/** `localhost:3000/hooks` means http://localhost:3000/hooks, as a browser would take it; refuse anything not http(s). */
export function forwardUrl(given: string, flag: string): string {
  const url = /^[a-z][\w+.-]*:\/\//i.test(given) ? given : `http://${given}`
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) {
    throw usageError(
      `${flag} must be an http(s) URL, e.g. http://localhost:3000/hooks (got "${given}")`,
      'INVALID_URL',
    )
  }
  return url
}

/** `PATTERN=URL`, the pattern an event selector that selects at least one of the 14 events. */
export function parseRoute(text: string): ForwardRoute {
  const eq = text.indexOf('=')
  if (eq <= 0) {
    throw usageError(
      `--route "${text}": expected PATTERN=URL, e.g. --route 'bnplsvc.*=http://localhost:3001/bnpl'`,
      'INVALID_ROUTE',
    )
  }
  const pattern = text.slice(0, eq).trim()
  const bad = unknownEventSelector([pattern])
  if (bad !== undefined) {
    const hint = bad.suggestion === undefined ? '' : `; did you mean "${bad.suggestion}"?`
    throw new PayctlError({
      kind: 'usage',
      code: 'INVALID_ROUTE',
      message: `--route "${text}": the pattern "${pattern}" matches no event${hint}`,
      details: {pattern, ...(bad.suggestion === undefined ? {} : {suggestion: bad.suggestion})},
      suggestions: [`Events: ${EVENT_NAMES.join(', ')} (or prefix.* or *)`],
    })
  }
  return {pattern, url: forwardUrl(text.slice(eq + 1).trim(), `--route "${text}"`)}
}

// The delivery's own headers, which the receiver's verification and the exact bytes rely on.
const RESERVED =
  /^(x-service-.*|content-.*|host|connection|keep-alive|transfer-encoding|te|upgrade|expect|trailer)$/i
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** `Name: value` for every forward; a name given twice keeps its last value. */
export function parseHeaders(texts: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const text of texts) {
    const colon = text.indexOf(':')
    const name = colon < 0 ? '' : text.slice(0, colon).trim()
    const value = colon < 0 ? '' : text.slice(colon + 1).trim()
    // Never echo the value: it may be a credential of the local app.
    if (!TOKEN.test(name))
      throw usageError(`--header "${name || text.slice(0, 40)}": expected "Name: value"`, 'INVALID_HEADER')
    if (/[\r\n\0]/.test(value))
      throw usageError(`--header ${name}: the value has a line break`, 'INVALID_HEADER')
    if (RESERVED.test(name)) {
      throw usageError(
        `--header ${name}: this header is the delivery's own (its signature, body and connection), forwarded as it came`,
        'INVALID_HEADER',
      )
    }
    headers[name.toLowerCase()] = value
  }
  return headers
}

/** Where an event goes: the first route that selects it, else forwardTo, else nowhere. */
export function targetOf(routing: ForwardRouting, event: string): string | undefined {
  return (routing.routes ?? []).find((r) => selectsEvent([r.pattern], event))?.url ?? routing.forwardTo
}

interface Job {
  run: () => Promise<DeliveryOutcome>
  settle: (outcome: Promise<DeliveryOutcome>) => void
}

/** One target's deliveries, forwarded one at a time in the order they came. */
class TargetQueue {
  readonly #jobs: Job[] = []
  #busy = false
  #stalled = false

  constructor(
    readonly url: string,
    readonly stalledMs: number,
  ) {}

  push(job: Job): void {
    this.#jobs.push(job)
    if (this.#stalled) this.#failWaiting()
    else void this.#next()
  }

  async #next(): Promise<void> {
    if (this.#busy) return
    const job = this.#jobs.shift()
    if (job === undefined) return
    this.#busy = true
    const stall = setTimeout(() => {
      this.#stalled = true
      this.#failWaiting()
    }, this.stalledMs)
    const outcome = job.run()
    job.settle(outcome)
    await outcome.catch(() => undefined)
    clearTimeout(stall)
    this.#stalled = false
    this.#busy = false
    void this.#next()
  }

  /** Deliveries waiting behind a stalled forward fail now: the sandbox retries them on its schedule. */
  #failWaiting(): void {
    for (const job of this.#jobs.splice(0)) {
      job.settle(
        Promise.resolve({
          forwarded: true,
          error: `not forwarded: ${this.url} has not answered the previous forward for ${this.stalledMs / 1000} s`,
        }),
      )
    }
  }
}

/** Forwards deliveries by the routing, each target's in order, the targets side by side. */
export class Forwarder {
  readonly #queues = new Map<string, TargetQueue>()
  readonly #routing: ForwardRouting
  readonly #timings: {forwardTimeoutMs: number; stalledMs: number}

  constructor(routing: ForwardRouting & ForwardTimings) {
    this.#routing = routing
    this.#timings = {
      forwardTimeoutMs: routing.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS,
      stalledMs: routing.stalledMs ?? STALLED_MS,
    }
  }

  /**
   * Forward a delivery of `event` to its target once `reported` settles (the delivery was told
   * about), after the target's earlier deliveries: the exact body, its headers and the extra ones.
   * With no target, it is only reported. Rejects when the report does.
   */
  async deliver(
    event: string,
    reported: unknown,
    headers: Record<string, string>,
    body: Uint8Array,
  ): Promise<{target: string | undefined; outcome: DeliveryOutcome}> {
    const ready = Promise.resolve(reported)
    const target = targetOf(this.#routing, event)
    if (target === undefined) {
      await ready
      return {target, outcome: {forwarded: false}}
    }
    // Handled here, so that a report failing while the delivery waits its turn is not "unhandled".
    ready.catch(() => undefined)
    return {target, outcome: await this.#forward(target, ready, headers, body)}
  }

  #forward(
    url: string,
    ready: Promise<unknown>,
    headers: Record<string, string>,
    body: Uint8Array,
  ): Promise<DeliveryOutcome> {
    let queue = this.#queues.get(url)
    if (queue === undefined) {
      queue = new TargetQueue(url, this.#timings.stalledMs)
      this.#queues.set(url, queue)
    }
    return new Promise<DeliveryOutcome>((resolve, reject) => {
      queue.push({
        run: async () => {
          await ready
          const all = {...headers, ...this.#routing.headers}
          return forwardDelivery(url, all, body, this.#timings.forwardTimeoutMs)
        },
        settle: (outcome) => outcome.then(resolve, reject),
      })
    })
  }
}
