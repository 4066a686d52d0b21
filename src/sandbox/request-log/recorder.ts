import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {IDEMPOTENCY_KEY} from '../../contract/api/endpoint.js'
import {endpoints} from '../../contract/api/endpoints.js'
import {INSPECTOR_PATH} from '../../contract/inspector.js'
import {redactCredentials} from '../../contract/redaction.js'
import type {RequestLogEntry} from '../../contract/request-log.js'
import type {AnswerHooks} from '../http/answers.js'
import type {} from '../http/fastify-request.js'
import type {RequestLogService} from './service.js'

/** Where credentials are exchanged for a token (always under /v1). */
const TOKEN_URL = `/v1${endpoints.createToken.path}`

/** The longest path a line keeps; a longer one is cut, with `…`. */
const PATH_MAX = 512

/**
 * Record every request the server answers in the request log, as answer hooks
 * (http/answers.ts): the error code is read from the answer as it is sent, the rest once it is
 * sent. Successful reads of the log itself are left out: they would crowd out what they look for,
 * and a follower would read its own polls. So is the browser inspector (/_sandbox/ui), which is no
 * request to the API: a page open on the log would fill it with its own reads.
 */
export function recordRequests(service: RequestLogService): AnswerHooks {
  const codes = new WeakMap<FastifyRequest, string>()
  return {
    sending: (request, reply, payload) => {
      if (typeof payload !== 'string') return
      if (reply.statusCode >= 400) {
        const code = errorCodeIn(payload)
        if (code !== undefined) codes.set(request, code)
      } else if (isExchange(request)) {
        // An exchange names no partner before it succeeds: it belongs to the one it was issued to.
        request.partnerId ??= issuedTo(payload)
      }
    },
    sent: (request, reply) => {
      if (!isOwnRead(request, reply) && !isInspector(request.url)) {
        service.record(entryOf(request, reply, codes.get(request)))
      }
    },
  }
}

/** Close the log with the server. */
export function closeWithServer(app: FastifyInstance, service: RequestLogService): void {
  app.addHook('onClose', (_app, done) => {
    service.close()
    done()
  })
}

// What is cheap is checked first: a route's options are an object Fastify builds on each read. The
// router decodes a path before it matches it, so an encoded one is left to the route's.
const isExchange = (request: FastifyRequest) =>
  request.method === 'POST' &&
  (request.url.startsWith(TOKEN_URL) || request.url.includes('%')) &&
  request.routeOptions.url === TOKEN_URL

const isOwnRead = (request: FastifyRequest, reply: FastifyReply) =>
  reply.statusCode < 300 &&
  (request.method === 'GET' || request.method === 'HEAD') &&
  request.routeOptions.url === endpoints.listRequestLog.path

/** Whether a path is the inspector's: its pages, data and assets. */
const isInspector = (url: string) =>
  url === INSPECTOR_PATH || url.startsWith(`${INSPECTOR_PATH}/`) || url.startsWith(`${INSPECTOR_PATH}?`)

function entryOf(
  request: FastifyRequest,
  reply: FastifyReply,
  errorCode: string | undefined,
): RequestLogEntry {
  const elapsed = reply.elapsedTime
  // Redacted before it is cut, so that no part of a credential is left at the cut.
  const path = redactCredentials(request.url.split('?', 1)[0] ?? '')
  const key = idempotencyKeyOf(request)
  return {
    time: new Date(Date.now() - elapsed).toISOString(),
    partner: request.partnerId ?? null,
    method: request.method,
    path: path.length > PATH_MAX ? `${path.slice(0, PATH_MAX - 1)}…` : path,
    status: reply.statusCode,
    durationMs: Math.round(elapsed * 10) / 10,
    // What the caller got: a replay carries the id of the request that produced it.
    requestId: String(reply.getHeader('x-request-id') ?? request.id),
    idempotencyKey: key === undefined ? null : redactCredentials(key),
    replayed: reply.getHeader('idempotent-replayed') === 'true',
    errorCode: errorCode ?? null,
    ...(request.injectedFault === undefined ? {} : {fault: request.injectedFault}),
  }
}

/** The key a change was sent with, in the header or (POST /transactions) the body; none for a read. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined
  const header = request.headers['idempotency-key']
  const body = request.body
  const field =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as {idempotencyKey?: unknown}).idempotencyKey
      : undefined
  const key = typeof header === 'string' ? header : field
  return typeof key === 'string' && IDEMPOTENCY_KEY.test(key) ? key : undefined
}

/** The code of an error answer, in whichever of the error shapes it takes. */
function errorCodeIn(payload: string): string | undefined {
  if (payload.length > 64 * 1024) return undefined
  try {
    const body = JSON.parse(payload) as {error?: unknown; code?: unknown} | null
    const error = body?.error
    const code = error !== null && typeof error === 'object' ? (error as {code?: unknown}).code : body?.code
    return typeof code === 'string' ? code.slice(0, 64) : undefined
  } catch {
    return undefined
  }
}

/** The partner an access token record was issued to. */
function issuedTo(payload: string): string | undefined {
  try {
    const partner = (JSON.parse(payload) as {partner_id?: unknown} | null)?.partner_id
    return typeof partner === 'string' ? partner : undefined
  } catch {
    return undefined
  }
}
