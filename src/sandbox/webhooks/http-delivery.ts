import {Agent, type Dispatcher, request} from 'undici'
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

async function readLimited(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk as Buffer)
    size += (chunk as Buffer).length
    // Leaving the loop destroys the stream: a chatty receiver cannot make the sandbox read megabytes.
    if (size >= limit) break
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8')
}

function describeFailure(err: unknown, timedOut: boolean): string {
  if (timedOut) return `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
  let e: unknown = err
  for (let i = 0; i < 4 && e; i++) {
    const code = (e as {code?: unknown}).code
    switch (code) {
      case 'ECONNREFUSED':
        return 'connection refused'
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'host not found'
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        return 'connection reset before an answer'
      case 'UND_ERR_CONNECT_TIMEOUT':
        return 'could not connect in time'
    }
    e = (e as {cause?: unknown}).cause
  }
  return (err as Error)?.message ?? String(err)
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
      return done({status: null, error: describeFailure(err, timeout.aborted), responseBody: null})
    }
  }

  /** Abort what is in flight and close pooled connections. */
  async close(): Promise<void> {
    this.#closing.abort()
    await this.#agent.close().catch(() => undefined)
  }
}
