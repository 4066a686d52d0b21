import type {FastifyReply, FastifyRequest, onRequestHookHandler} from 'fastify'
import type {Endpoint} from '../../contract/api/endpoint.js'
import type {SandboxContext} from '../context.js'
import {injectApiFault} from '../faults/requests.js'
import type {Authenticator, Principal} from '../tenancy/authenticate.js'
import {AuthFailure} from './api-error.js'
import {RATE_LIMITS} from './rate-limiter.js'

/**
 * The onRequest hook of `endpoint`'s route: the caller authenticated (kept as `request.principal`), within
 * its rate limits, its faults on demand injected. A client's token, verified before, is taken
 * without a promise; a new one goes through WebCrypto.
 */
export function admission(
  ctx: SandboxContext,
  authenticator: Authenticator,
  endpoint: Endpoint,
): onRequestHookHandler {
  return (request, reply, done) => {
    if (endpoint.auth === 'credentials') return done()
    let admitted: Principal | undefined | Promise<Principal | undefined>
    try {
      admitted = admit(ctx, authenticator, endpoint, request, reply)
    } catch (err) {
      return done(err as Error)
    }
    if (!(admitted instanceof Promise)) {
      request.principal = admitted
      return done()
    }
    admitted.then((principal) => {
      request.principal = principal
      done()
    }, done)
  }
}

/**
 * The caller of a request, authenticated and within its rate limits, with its faults on demand
 * injected; undefined where none is needed. At once when nothing needs waiting for (a token
 * verified before, no fault's latency), else a promise; a refusal is thrown, or rejected.
 */
function admit(
  ctx: SandboxContext,
  authenticator: Authenticator,
  endpoint: Endpoint,
  request: FastifyRequest,
  reply: FastifyReply,
): Principal | undefined | Promise<Principal | undefined> {
  const refused = (err: unknown): never => {
    // A guessed credential (an unknown key, a token not signed by this sandbox) counts
    // against the address; past the budget the answer is 429 instead of 401.
    if (err instanceof AuthFailure && err.guess) {
      reply.headers(ctx.limiter.noteFailedAuth(`bearer ${request.ip}`, RATE_LIMITS.failedBearerPerMinute))
    }
    throw err
  }
  let authenticated: Principal | undefined | Promise<Principal | undefined>
  try {
    authenticated = authenticator.authenticateNow(endpoint, request.headers.authorization)
  } catch (err) {
    return refused(err)
  }
  if (authenticated instanceof Promise)
    return authenticated.then((principal) => admitted(ctx, endpoint, request, reply, principal), refused)
  return admitted(ctx, endpoint, request, reply, authenticated)
}

/** An authenticated caller within its rate limits, once its faults on demand are injected. */
function admitted(
  ctx: SandboxContext,
  endpoint: Endpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal | undefined,
): Principal | undefined | Promise<Principal | undefined> {
  if (principal === undefined) return undefined
  // The caller's partner, for what reads the request afterwards (the request log: fastify-request.ts).
  request.partnerId = principal.partner.partnerId
  if (endpoint.rateLimited !== false)
    reply.headers(ctx.limiter.admit(principal.partner.partnerId, endpoint.tag === 'wallets'))
  // The caller's own faults on demand, once it is known and admitted (docs/sandbox.md#faults).
  const injected = injectApiFault(
    ctx.faults,
    request,
    reply,
    endpoint.operationId,
    principal.partner.partnerId,
  )
  return injected === undefined ? principal : injected.then(() => principal)
}
