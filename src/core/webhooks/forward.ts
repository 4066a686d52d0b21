import type {Agent} from 'undici'
import {describeRequestFailure, readLimited} from '../../contract/webhook-signing/http.js'
import type {DeliveryOutcome} from './listen-state.js'

/** A forward gives up when the local receiver has not answered in full within this time (by default). */
export const FORWARD_TIMEOUT_MS = 10_000
/** How much of the local receiver's answer is reported back to the sandbox. */
const BODY_LIMIT = 2048

let agentPromise: Promise<Agent> | undefined

// Forwards go straight to the developer's own app: no proxy, connections kept alive for bursts.
function agent(): Promise<Agent> {
  agentPromise ??= import('undici').then((u) => new u.Agent({keepAliveTimeout: 10_000, connections: 32}))
  return agentPromise
}

/**
 * POST the exact body bytes with the delivery's own headers (signature included) to `url`, as the
 * sandbox would: redirects are not followed, one overall timeout. Never throws.
 */
export async function forwardDelivery(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  timeoutMs = FORWARD_TIMEOUT_MS,
): Promise<DeliveryOutcome> {
  const started = performance.now()
  const timeout = AbortSignal.timeout(timeoutMs)
  const elapsed = () => Math.round(performance.now() - started)
  try {
    const {request} = await import('undici')
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: await agent(),
      signal: timeout,
    })
    const text = await readLimited(res.body, BODY_LIMIT)
    return {forwarded: true, status: res.statusCode, durationMs: elapsed(), body: text}
  } catch (err) {
    const error = describeRequestFailure(err, {
      timedOut: timeout.aborted,
      timeoutMs,
      refused: 'connection refused (is your app running?)',
    })
    return {forwarded: true, durationMs: elapsed(), error}
  }
}

/** Close the forwarding connections so the process can exit. */
export async function closeForwarding(): Promise<void> {
  if (agentPromise === undefined) return
  const a = await agentPromise
  agentPromise = undefined
  await a.close().catch(() => undefined)
}
