import {Agent, request} from 'undici'
import {describeRequestFailure, readLimited} from '../../core/webhooks/http.js'
import {SIGNATURE_HEADER, signatureHeader} from '../../core/webhooks/signature.js'
import {RESPONSE_BODY_LIMIT} from './store.js'

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
 * follows them), one overall timeout, the answer's first 2 KiB kept. Never throws.
 */
export class HttpPoster {
  readonly #agent = new Agent({connect: {timeout: DELIVERY_TIMEOUT_MS}, keepAliveTimeout: 4_000})
  readonly #closing = new AbortController()

  async post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now()
    const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS)
    const signal = AbortSignal.any([timeout, this.#closing.signal])
    const done = (r: Omit<PostResult, 'durationMs'>): PostResult => ({
      ...r,
      durationMs: Math.round(performance.now() - started),
    })
    try {
      const res = await request(url, {method: 'POST', headers, body, dispatcher: this.#agent, signal})
      const responseBody = await readLimited(res.body, RESPONSE_BODY_LIMIT)
      const status = res.statusCode
      if (status >= 200 && status < 300) return done({status, error: null, responseBody})
      const location = res.headers.location
      const error =
        status >= 300 && status < 400
          ? `HTTP ${status}: redirects are not followed${typeof location === 'string' ? ` (Location: ${location})` : ''}`
          : `HTTP ${status}`
      return done({status, error, responseBody})
    } catch (err) {
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
