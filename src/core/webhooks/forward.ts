import type {Agent, Dispatcher} from 'undici'
import type {DeliveryOutcome} from './listen-state.js'

/** A forward gives up when the local receiver has not answered in full within this time. */
export const FORWARD_TIMEOUT_MS = 10_000
/** How much of the local receiver's answer is reported back to the sandbox. */
const BODY_LIMIT = 2048

let agentPromise: Promise<Agent> | undefined

// Forwards go straight to the developer's own app: no proxy, connections kept alive for bursts.
function agent(): Promise<Agent> {
  agentPromise ??= import('undici').then((u) => new u.Agent({keepAliveTimeout: 10_000, connections: 32}))
  return agentPromise
}

async function readLimited(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk as Buffer)
    size += (chunk as Buffer).length
    if (size >= BODY_LIMIT) break
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, BODY_LIMIT)
}

function describe(err: unknown, timedOut: boolean): string {
  if (timedOut) return `no answer within ${FORWARD_TIMEOUT_MS / 1000} s`
  let e: unknown = err
  for (let i = 0; i < 4 && e; i++) {
    const code = (e as {code?: unknown}).code
    if (code === 'ECONNREFUSED') return 'connection refused (is your app running?)'
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found'
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset before an answer'
    e = (e as {cause?: unknown}).cause
  }
  return ((err as Error)?.message ?? String(err)).slice(0, 500)
}

/**
 * POST the exact body bytes with the delivery's own headers (signature included) to `url`, as the
 * sandbox would: redirects are not followed, one overall timeout. Never throws.
 */
export async function forwardDelivery(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<DeliveryOutcome> {
  const started = performance.now()
  const timeout = AbortSignal.timeout(FORWARD_TIMEOUT_MS)
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
    const text = await readLimited(res.body)
    return {forwarded: true, status: res.statusCode, durationMs: elapsed(), body: text}
  } catch (err) {
    return {forwarded: true, durationMs: elapsed(), error: describe(err, timeout.aborted)}
  }
}

/** Close the forwarding connections so the process can exit. */
export async function closeForwarding(): Promise<void> {
  if (agentPromise === undefined) return
  const a = await agentPromise
  agentPromise = undefined
  await a.close().catch(() => undefined)
}
