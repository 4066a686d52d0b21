import type {FastifyReply, FastifyRequest} from 'fastify'
import {ApiError} from '../http/api-error.js'
import type {ApiInjection, FaultStore} from './injection.js'

/**
 * Faults on demand as the HTTP server applies them to requests (the store that draws them is
 * injection.ts, which knows nothing of Fastify).
 */

const STATUS_CODES = {429: 'RATE_LIMIT_EXCEEDED', 500: 'INTERNAL_ERROR', 503: 'SERVICE_UNAVAILABLE'} as const
const STATUS_TEXT = {429: 'too many requests', 500: 'server error', 503: 'service unavailable'} as const

/** Requests whose connection is cut once their answer is committed (`drop after`). */
const dropAfter = new WeakSet<FastifyRequest>()

/**
 * Inject the partner's API faults into an authenticated request, before its body is read: wait out
 * the latency, then answer the fault's status (rejects), cut the connection (`drop before`: the
 * operation never runs), or mark the request to be cut once its answer is committed (`drop after`).
 * Undefined when the partner has no fault for it.
 */
export function injectApiFault(
  faults: FaultStore,
  request: FastifyRequest,
  reply: FastifyReply,
  operationId: string,
  partnerId: string,
): Promise<void> | undefined {
  const injection = faults.draw(partnerId, operationId, request.url.split('?', 1)[0] ?? '')
  // None drawn (nearly always): nothing to wait for.
  return injection === undefined ? undefined : inject(injection, request, reply)
}

async function inject(injection: ApiInjection, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  request.injectedFault = injection.label
  if (injection.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, injection.latencyMs))
  if (injection.drop === 'before') {
    // Nothing runs and nothing answers: Fastify leaves a hijacked reply alone.
    reply.hijack()
    request.raw.socket.destroy()
    return
  }
  if (injection.drop === 'after') dropAfter.add(request)
  const status = injection.status
  if (status === undefined) return
  const retryAfter = injection.retryAfterSeconds
  throw new ApiError(
    STATUS_CODES[status],
    `Injected fault (${injection.faultIds.join(', ')}): ${STATUS_TEXT[status]}`,
    {injected: true, faultIds: injection.faultIds},
    {headers: retryAfter === undefined ? {} : {'retry-after': String(retryAfter)}},
  )
}

/**
 * Cut the connection of a `drop after` request in place of its answer: an answer hook that runs
 * once the answer is committed (http/answers.ts), so the change (and its idempotent answer) is in
 * the data file.
 */
export function dropIfAfter(request: FastifyRequest): void {
  if (dropAfter.has(request)) request.raw.socket.destroy()
}
