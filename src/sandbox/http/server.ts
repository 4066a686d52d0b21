import type {Socket} from 'node:net'
import Fastify, {type FastifyInstance, type FastifyReply, type FastifyRequest} from 'fastify'
import {
  type Endpoint,
  type ErrorStyle,
  errorStyleOf,
  hasOwnKeyCodes,
  IDEMPOTENCY_KEY,
  takesIdempotencyKey,
} from '../../contract/api/endpoint.js'
import {endpoints} from '../../contract/api/endpoints.js'
import type {RawInput, RouteSpec, SandboxContext, SandboxSettings, ServedRoute} from '../context.js'
import {dropIfAfter} from '../faults/requests.js'
import type {Feature, Served} from '../feature.js'
import {newId} from '../storage/ids.js'
import {Authenticator} from '../tenancy/authenticate.js'
import {admission} from './admission.js'
import {type AnswerHooks, addAnswerHooks} from './answers.js'
import {ApiError, AuthFailure, renderError} from './api-error.js'
import {fingerprintOf, idempotencyKeyOf} from './idempotency.js'
import {parseRequestJson} from './json.js'
import {holdYoungGeneration, LARGE_BODY_CHARS} from './large-body.js'
import {parseRequest} from './validation.js'

/** Largest request body accepted (but an endpoint's own bodyLimit); larger ones get 413 PAYLOAD_TOO_LARGE. */
export const BODY_LIMIT_BYTES = 1024 * 1024
/** A request's headers must arrive within this, and the whole request within REQUEST_TIMEOUT_MS. */
export const HEADERS_TIMEOUT_MS = 10_000
const REQUEST_TIMEOUT_MS = 30_000
/** Open connections one client address may hold, but for 127.0.0.1 and ::1, which every local client shares. */
export const CONNECTIONS_PER_ADDRESS = 64

const JSON_TYPE = 'application/json; charset=utf-8'

interface RouteConfig {
  endpoint?: Endpoint
}

function endpointOf(request: FastifyRequest): Endpoint | undefined {
  return request.is404 ? undefined : (request.routeOptions.config as RouteConfig).endpoint
}

function styleOf(endpoint: Endpoint | undefined): ErrorStyle {
  return endpoint === undefined ? 'business' : errorStyleOf(endpoint)
}

/**
 * POST /wallets has its own error table in the spec, naming INVALID_API_KEY (401) and
 * INSUFFICIENT_PERMISSIONS (403): there (and only on endpoints whose contract lists those codes), a
 * refused Variant B key or minted JWT answers with them in the business shape. Every other route,
 * the other wallet routes included, answers in the Variant B auth shape (docs/auth.md).
 */
function ownKeyCodes(endpoint: Endpoint | undefined, err: ApiError): ApiError {
  if (endpoint === undefined || !hasOwnKeyCodes(endpoint)) return err
  if (!(err instanceof AuthFailure) || err.variant !== 'B') return err
  if (err.code === 'invalid_api_key') return new ApiError('INVALID_API_KEY', err.message)
  if (err.code === 'insufficient_permissions') return new ApiError('INSUFFICIENT_PERMISSIONS', err.message)
  return err
}

function urlOf(endpoint: Endpoint): string {
  const path = endpoint.path.replace(/\{(\w+)\}/g, ':$1')
  return endpoint.versioned === false ? path : `/v1${path}`
}

/** Map what Fastify itself throws (body parsing, bad URLs) onto the contract's codes. */
function toApiError(err: unknown, endpoint?: Endpoint): ApiError | undefined {
  if (err instanceof ApiError) return err
  const code = (err as {code?: unknown}).code
  // A route's own body limit where it has one (a story's), else every route's.
  const limit = endpoint?.bodyLimit ?? BODY_LIMIT_BYTES
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`, {limit})
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Request body must be JSON: send Content-Type: application/json',
      )
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('VALIDATION_ERROR', 'Content-Length does not match the request body')
    case 'FST_ERR_BAD_URL':
      return new ApiError('VALIDATION_ERROR', 'Malformed request URL')
  }
  const status = (err as {statusCode?: unknown}).statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError('VALIDATION_ERROR', 'Malformed request')
  }
  return undefined
}

function sendJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(body)
}

export interface ServerOptions {
  log?: ((line: string) => void) | undefined
}

/**
 * Build the Fastify app that serves the contract's endpoints from `features`, each served from
 * `ctx`; their due work joins the clock's. Does not listen.
 */
export function buildServer(
  ctx: SandboxContext,
  features: readonly Feature[],
  options: ServerOptions = {},
): FastifyInstance {
  const {settings} = ctx
  const log = options.log
  const app = createApp(settings)
  addJsonParsers(app)
  // Filled once the routes are known; the 405 handler reads it only when a request comes.
  const paths: PathMethods = new Map()
  setErrorHandlers(app, settings, (request) => methodNotAllowed(paths, request), log)

  // The trigger runs other operations as fixture steps: it finds them among these, parsing as a request does.
  const serving = {...ctx, log, operation: (id: string) => operations.get(id)}
  const served: Served[] = features.map((feature) => feature.serve(serving))
  const routes = served.flatMap((s) => s.routes)
  checkEveryEndpointServed(routes)
  const operations = new Map(routes.map((spec) => [spec.endpoint.operationId, servedRoute(spec)]))
  const authenticator = new Authenticator(ctx.partners, ctx.tokens)
  for (const operation of operations.values()) registerRoute(app, ctx, operation, authenticator)
  for (const {due, attach} of served) {
    if (due !== undefined) ctx.due.add(due)
    attach?.(app)
  }
  // Faults on demand (`drop after`) first, then the features' own, each once the answer is committed.
  const answers: AnswerHooks[] = [{sending: dropIfAfter}, ...served.flatMap((s) => s.answers ?? [])]
  if (log !== undefined) answers.unshift({sent: stderrLine(log)})
  addAnswerHooks(app, () => ctx.database.committed(), answers)
  addPaths(paths, routes)
  return app
}

/** Fastify with the sandbox's limits and request ids; what Fastify refuses itself answers in the contract's shape. */
function createApp(settings: SandboxSettings): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // A client that dribbles its headers or body is cut off (408), checked every second rather
    // than Node's 30 s, so a thousand slow sockets cannot pin the sandbox's connections.
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: {headersTimeout: settings.headersTimeoutMs, connectionsCheckingInterval: 1_000},
    genReqId: () => newId.request(),
    routerOptions: {ignoreTrailingSlash: true},
    frameworkErrors: (err, request, reply) => {
      const rendered = renderError(
        toApiError(err) ?? new ApiError('VALIDATION_ERROR', 'Malformed request'),
        'business',
        settings.responseShape,
        request.id,
      )
      void sendJson(reply, rendered.status, JSON.stringify(rendered.body))
    },
  })
  limitConnectionsPerAddress(app)
  return app
}

/**
 * Refuse a client address its connection past CONNECTIONS_PER_ADDRESS. 127.0.0.1 and ::1 are
 * exempt: every program on this machine connects from them (the benchmark alone opens 50).
 */
function limitConnectionsPerAddress(app: FastifyInstance): void {
  const open = new Map<string, number>()
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined || SHARED_LOCAL_ADDRESSES.has(address)) return
    const count = (open.get(address) ?? 0) + 1
    if (count > CONNECTIONS_PER_ADDRESS) {
      socket.destroy()
      return
    }
    open.set(address, count)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left === 0) open.delete(address)
      else open.set(address, left)
    })
  })
}

const SHARED_LOCAL_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])
/** Only JSON bodies. An empty body is "no body", so bodiless POSTs may still send the header. */
function addJsonParsers(app: FastifyInstance): void {
  const jsonBody = (source: string, done: (err: Error | null, body?: unknown) => void) => {
    if (source.trim() === '') return done(null, undefined)
    const release = source.length >= LARGE_BODY_CHARS ? holdYoungGeneration() : undefined
    let body: unknown
    try {
      body = parseRequestJson(source)
    } catch (err) {
      release?.()
      const message = `Malformed JSON in request body: ${(err as Error).message}`
      return done(
        new ApiError('VALIDATION_ERROR', message, {issues: [{path: '', code: 'invalid_json', message}]}),
        undefined,
      )
    }
    if (release === undefined) return done(null, body)
    // Fastify runs the request from inside its reader, whose frame holds the body's text and its
    // chunks (twice the body's size) until the request returns: a large body's request runs in the
    // next turn, once the reader has let them go.
    setImmediate(() => {
      try {
        done(null, body)
      } finally {
        release()
      }
    })
  }
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', {parseAs: 'string'}, (_request, text, done) =>
    jsonBody(text as string, done),
  )
  // `curl -d '{…}'` labels a JSON body as a form: read it as JSON when it is JSON.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    {parseAs: 'string'},
    (_request, text, done) => {
      try {
        JSON.parse(text as string)
      } catch {
        return done(
          new ApiError(
            'UNSUPPORTED_MEDIA_TYPE',
            'Request body must be JSON: send Content-Type: application/json',
          ),
          undefined,
        )
      }
      jsonBody(text as string, done)
    },
  )
}

/** The line on stderr for each request answered. */
function stderrLine(log: (line: string) => void): AnswerHooks['sent'] {
  return (request, reply) => {
    const path = request.url.split('?', 1)[0]
    log(`${request.method} ${path} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms ${request.id}`)
  }
}

/** Errors of the routes, and requests no route takes (404, or 405 where the path takes other methods). */
function setErrorHandlers(
  app: FastifyInstance,
  settings: SandboxSettings,
  methodNotAllowed: (request: FastifyRequest) => ApiError | undefined,
  log: ServerOptions['log'],
): void {
  app.setErrorHandler((err, request, reply) => {
    const endpoint = endpointOf(request)
    let apiError = request.is404 ? notFound(request) : toApiError(err, endpoint)
    if (apiError === undefined) {
      log?.(
        `internal error on ${request.method} ${request.url.split('?', 1)[0]} ${request.id}: ${String(err)}`,
      )
      apiError = new ApiError('INTERNAL_ERROR', 'The sandbox failed to handle this request')
    }
    const rendered = renderError(
      ownKeyCodes(endpoint, apiError),
      styleOf(endpoint),
      settings.responseShape,
      request.id,
    )
    reply.headers(rendered.headers)
    return sendJson(reply, rendered.status, JSON.stringify(rendered.body))
  })

  app.setNotFoundHandler((request, reply) => {
    const rendered = renderError(
      methodNotAllowed(request) ?? notFound(request),
      'business',
      settings.responseShape,
      request.id,
    )
    reply.headers(rendered.headers)
    return sendJson(reply, rendered.status, JSON.stringify(rendered.body))
  })
}

/** Each path with the methods it has, for 405 and its Allow header. */
type PathMethods = Map<string, {pattern: RegExp; methods: Set<string>}>

function addPaths(paths: PathMethods, routes: readonly RouteSpec[]): void {
  for (const {endpoint} of routes) {
    const url = urlOf(endpoint)
    let path = paths.get(url)
    if (path === undefined) {
      path = {pattern: new RegExp(`^${url.replace(/:\w+/g, '[^/]+')}/?$`), methods: new Set()}
      paths.set(url, path)
    }
    path.methods.add(endpoint.method)
    if (endpoint.method === 'GET') path.methods.add('HEAD')
  }
}

function methodNotAllowed(paths: PathMethods, request: FastifyRequest): ApiError | undefined {
  const path = request.url.split('?', 1)[0] ?? ''
  const allowed = [...paths.values()].filter((p) => p.pattern.test(path)).flatMap((p) => [...p.methods])
  if (allowed.length === 0) return undefined
  const allow = [...new Set(allowed)].sort().join(', ')
  return new ApiError(
    'METHOD_NOT_ALLOWED',
    `${path} does not take ${request.method}; it takes ${allow}`,
    {allowed: allow.split(', ')},
    {headers: {allow}},
  )
}

/**
 * A route's operation as the server runs it: the request's body and query parsed with the endpoint's
 * schemas first, so that the operation gets them as OperationInput types them. A refused body is
 * refused before anything the operation checks itself (that the path's user exists, that the
 * caller may move the clock), with a VALIDATION_ERROR that runIdempotently keeps out of the
 * idempotency store.
 */
function servedRoute(spec: RouteSpec): ServedRoute {
  // Erased here (as route() erases it, in context.ts): the input is parsed with this endpoint's own schemas.
  const operation = spec as unknown as {run(input: RawInput): unknown; forReplay?(resource: unknown): unknown}
  return {
    endpoint: spec.endpoint,
    run: (input) => operation.run({...input, ...parseRequest(spec.endpoint, input.body, input.query)}),
    forReplay: operation.forReplay?.bind(operation),
  }
}

/** One endpoint's route: authentication and rate limits first, then the operation, idempotently where it may be. */
function registerRoute(
  app: FastifyInstance,
  ctx: SandboxContext,
  spec: ServedRoute,
  authenticator: Authenticator,
): void {
  const {settings} = ctx
  const {endpoint} = spec
  const render = (resource: unknown, requestId: string): string =>
    JSON.stringify(
      endpoint.enveloped && settings.responseShape === 'envelope'
        ? {success: true, data: resource, meta: {requestId, timestamp: new Date().toISOString()}}
        : resource,
    )

  app.route({
    method: endpoint.method,
    url: urlOf(endpoint),
    config: {endpoint} satisfies RouteConfig,
    ...(endpoint.bodyLimit === undefined ? {} : {bodyLimit: endpoint.bodyLimit}),
    // Authentication and rate limits run before the body is read: no credential, no parsing.
    onRequest: admission(ctx, authenticator, endpoint),
    // Not async: a change under its key runs and answers at once, without a promise of its own.
    // What it throws Fastify sends to the error handler as it does an async handler's rejection.
    handler: (request, reply) => {
      const principal = request.principal
      const input: RawInput = {
        principal,
        body: request.body,
        query: request.query,
        params: request.params as Record<string, string>,
        ip: request.ip,
        setHeaders: (headers) => reply.headers(headers),
      }
      const key = idempotencyKeyOf(request.headers['idempotency-key'], request.body)
      if (!takesIdempotencyKey(endpoint) || key === undefined || principal === undefined) {
        return Promise.resolve(spec.run(input)).then((resource) =>
          sendJson(reply, endpoint.status, render(resource, request.id)),
        )
      }
      if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
        throw new ApiError(
          'VALIDATION_ERROR',
          'Idempotency-Key must be 1 to 255 printable ASCII characters',
          {
            field: 'Idempotency-Key',
          },
        )
      }
      const outcome = runIdempotently(ctx, spec, request, input, principal.partner.partnerId, key, render)
      if (outcome.replayed) {
        // The replay is the first response, request id included.
        reply.header('idempotent-replayed', 'true').header('x-request-id', outcome.requestId)
      }
      sendJson(reply, outcome.status, outcome.body)
    },
  })
}

/**
 * Run an operation under its idempotency key: the first request runs and its answer is stored, a
 * repeat of it gets that answer back, and another request under the same key is refused.
 */
function runIdempotently(
  ctx: SandboxContext,
  spec: ServedRoute,
  request: FastifyRequest,
  input: RawInput,
  partnerId: string,
  key: string,
  render: (resource: unknown, requestId: string) => string,
): {replayed: boolean; status: number; body: string; requestId: string} {
  const {endpoint} = spec
  // The key is not part of the request: sent in the header or in the body, it is the same request.
  const fingerprint = fingerprintOf(endpoint, request.params, request.query, request.body)
  // The change, its event and the stored response commit together, or not at all.
  return ctx.database.transaction(() => {
    // The request runs to its stored response in this transaction, before the next request is read:
    // a duplicate sent meanwhile finds the answer stored, and waits for the same commit.
    const reservation = ctx.idempotency.find(partnerId, key, fingerprint)
    if (reservation.kind === 'replay') return {replayed: true, ...reservation.response}
    if (reservation.kind === 'conflict') {
      throw new ApiError(
        'DUPLICATE_TRANSACTION',
        'Idempotency-Key was already used for a different request',
        {
          idempotencyKey: key,
        },
      )
    }
    let status: number
    let body: string
    let stored: string | undefined
    try {
      const resource = ctx.database.transaction(() => spec.run(input))
      if (resource instanceof Promise) throw new Error(`${endpoint.operationId} must be synchronous`)
      status = endpoint.status
      body = render(resource, request.id)
      if (spec.forReplay !== undefined) stored = render(spec.forReplay(resource), request.id)
    } catch (err) {
      // Refused or malformed requests did not run: nothing to replay, the key stays free.
      if (!(err instanceof ApiError) || err instanceof AuthFailure) throw err
      if (err.code === 'VALIDATION_ERROR' || err.status === 429 || err.status >= 500) throw err
      const rendered = renderError(err, styleOf(endpoint), ctx.settings.responseShape, request.id)
      status = rendered.status
      body = JSON.stringify(rendered.body)
    }
    ctx.idempotency.complete(partnerId, key, fingerprint, {
      status,
      body: stored ?? body,
      requestId: request.id,
    })
    return {replayed: false, status, body, requestId: request.id}
  })
}

function notFound(request: FastifyRequest): ApiError {
  const path = request.url.split('?', 1)[0] ?? ''
  return new ApiError('NOT_FOUND', `No route ${request.method} ${path}`, {resource: 'route', id: path})
}

/** Refuse to start unless each endpoint of the contract has exactly one operation serving it. */
export function checkEveryEndpointServed(routes: readonly {endpoint: Endpoint}[]): void {
  const served = new Map<string, number>()
  for (const {endpoint} of routes)
    served.set(endpoint.operationId, (served.get(endpoint.operationId) ?? 0) + 1)
  const problems = Object.values(endpoints as Record<string, Endpoint>).flatMap((e) => {
    const count = served.get(e.operationId) ?? 0
    return count === 1
      ? []
      : [`${e.operationId} (${e.method} ${e.path}) has ${count === 0 ? 'no route' : `${count} routes`}`]
  })
  const known = new Set(Object.values(endpoints as Record<string, Endpoint>).map((e) => e.operationId))
  for (const id of served.keys())
    if (!known.has(id)) problems.push(`${id} is served but not in the endpoint table`)
  if (problems.length > 0)
    throw new Error(`the sandbox's routes do not match the contract: ${problems.join('; ')}`)
}
