// Two parts of undici rather than its index, which loads fetch, WebSocket, caches and mocks too:
// the sandbox starts faster (core/transport.ts does the same; scripts/bundle.ts checks the parts).

import request from 'undici/lib/api/api-request.js'
import Agent from 'undici/lib/dispatcher/agent.js'
import {describeRequestFailure, readLimited} from '../../contract/webhook-signing/http.js'
import {SIGNATURE_HEADER, signatureHeader} from '../../contract/webhook-signing/signature.js'
import {ERROR_RESPONSE_BODY_LIMIT, RESPONSE_BODY_LIMIT} from './rows.js'
import {checkedLookup, RefusedAddressError, refusedUrl, type UrlPolicy} from './url-policy.js'

/** A delivery attempt gives up when the receiver has not answered in full within this time. */
export const DELIVERY_TIMEOUT_MS = 10_000

/** The headers of a delivery attempt; a listen session's deliveries carry the very same ones. */
export function deliveryHeaders(opts: {
  body: string
  secrets: readonly string[]
  timestamp: number
  deliveryId: string
  eventId: string
  attempt: number
  version: string
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `payctl-sandbox/${opts.version} (webhooks)`,
    [SIGNATURE_HEADER]: signatureHeader(opts.body, opts.secrets, opts.timestamp),
    'x-service-event-id': opts.eventId,
    'x-service-delivery-id': opts.deliveryId,
    'x-service-delivery-attempt': String(opts.attempt),
  }
}

export interface PostResult {
  status: number | null
  durationMs: number
  error: string | null
  responseBody: string | null
}

/**
 * POSTs deliveries with the sandbox's rules: no redirects followed (undici's `request` never
 * follows them), one overall timeout, no address the URL policy forbids (checked on the URL and
 * on every address its name resolves to), the first 2 KiB of a 2xx answer kept and the first
 * 256 bytes of any other. Never throws.
 */
export class HttpPoster {
  readonly #agent: InstanceType<typeof Agent>
  readonly #policy: UrlPolicy
  readonly #closing = new AbortController()

  constructor(policy: UrlPolicy) {
    this.#policy = policy
    this.#agent = new Agent({
      connect: {timeout: DELIVERY_TIMEOUT_MS, lookup: checkedLookup(policy)},
      keepAliveTimeout: 4_000,
    })
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now()
    const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS)
    const signal = AbortSignal.any([timeout, this.#closing.signal])
    const done = (r: Omit<PostResult, 'durationMs'>): PostResult => ({
      ...r,
      durationMs: Math.round(performance.now() - started),
    })
    // Registered before the policy said otherwise (another data file, another --host): check again.
    const refused = refusedUrl(new URL(url), this.#policy)
    if (refused !== undefined) return done({status: null, error: `refused: ${refused}`, responseBody: null})
    try {
      const {origin, pathname, search} = new URL(url)
      const res = await request.call(this.#agent, {
        origin,
        path: `${pathname}${search}`,
        method: 'POST',
        headers,
        body,
        signal,
      })
      const status = res.statusCode
      const ok = status >= 200 && status < 300
      // What an error page says is for debugging, not for reading other services through the event log.
      const responseBody = await readLimited(res.body, ok ? RESPONSE_BODY_LIMIT : ERROR_RESPONSE_BODY_LIMIT)
      if (ok) return done({status, error: null, responseBody})
      const location = res.headers.location
      const error =
        status >= 300 && status < 400
          ? `HTTP ${status}: redirects are not followed${typeof location === 'string' ? ` (Location: ${location})` : ''}`
          : `HTTP ${status}`
      return done({status, error, responseBody})
    } catch (err) {
      const refusal = refusalIn(err)
      if (refusal !== undefined) return done({status: null, error: `refused: ${refusal}`, responseBody: null})
      const error = describeRequestFailure(err, {timedOut: timeout.aborted, timeoutMs: DELIVERY_TIMEOUT_MS})
      return done({status: null, error, responseBody: null})
    }
  }

  /** Abort what is in flight and close pooled connections. */
  async close(): Promise<void> {
    this.#closing.abort()
    await this.#agent.close().catch(() => undefined)
  }
}

function refusalIn(err: unknown): string | undefined {
  let e: unknown = err
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof RefusedAddressError) return e.message
    e = (e as {cause?: unknown}).cause
  }
  return undefined
}
