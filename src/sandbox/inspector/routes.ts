import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {
  INSPECTOR_PATH,
  INSPECTOR_READS,
  type InspectorRead,
  type InspectorSession,
} from '../../contract/inspector.js'
import {ApiError} from '../http/api-error.js'
import {type LinkParts, linkRoutes} from './link-routes.js'
import {appPage, assetOf, SECURITY_HEADERS, safeNext, signInPage} from './pages.js'
import {preloadFor} from './preload.js'
import {
  CLEARED_COOKIE,
  fromSameOrigin,
  requireChange,
  requireSession,
  sendHtml,
  sendJson,
  sessionCookie,
  sessionOf,
} from './requests.js'
import type {InspectorService} from './service.js'
import {MAX_SESSIONS, type Sessions} from './sessions.js'
import type {SignIn} from './sign-in.js'
import type {LiveStreams} from './stream.js'
import {timelinePage} from './timeline.js'

/** What the inspector's routes are served from. */
export interface InspectorParts extends Omit<LinkParts, 'sessions'> {
  service: InspectorService
  sessions: Sessions
  live: LiveStreams
  signIn: SignIn
  log: ((line: string) => void) | undefined
}

const READS = new Set<string>(INSPECTOR_READS)

/**
 * The inspector under /_sandbox/ui, in a scope of its own: its pages and their data answer only
 * a signed-in browser, every answer carries the security headers (docs/inspector.md#security),
 * and its errors are its own JSON, never the API's envelope.
 */
export function inspectorRoutes(parts: InspectorParts) {
  return async (scope: FastifyInstance): Promise<void> => {
    // A sign-in form posts application/x-www-form-urlencoded: read here, and nowhere else.
    scope.removeContentTypeParser('application/x-www-form-urlencoded')
    scope.addContentTypeParser('application/x-www-form-urlencoded', {parseAs: 'string'}, (_r, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    )
    scope.addHook('onSend', (_request, reply, payload, done) => {
      reply.headers(SECURITY_HEADERS)
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
      done(null, payload)
    })
    scope.setErrorHandler((err, request, reply) => {
      const known = err instanceof ApiError ? err : refusalOf(err)
      if (known === undefined)
        parts.log?.(`inspector: internal error on ${request.method} ${request.url}: ${String(err)}`)
      const shown = known ?? new ApiError('INTERNAL_ERROR', 'The inspector failed to answer')
      reply.headers(shown.headers)
      return sendJson(reply, shown.status, {
        error: {code: shown.code, message: shown.message, details: shown.details},
      })
    })
    pageRoutes(scope, parts)
    linkRoutes(scope, parts)
    dataRoutes(scope, parts)
    changeRoutes(scope, parts)
  }
}

/** What Fastify refuses of a request itself (its body's type or size), in the contract's codes. */
function refusalOf(err: unknown): ApiError | undefined {
  const status = (err as {statusCode?: unknown}).statusCode
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is too large')
  if (status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send JSON, or the sign-in form')
  return new ApiError('VALIDATION_ERROR', 'Malformed request')
}

/** The pages: the sign-in form, the bundle, and every other path the bundle draws. */
function pageRoutes(scope: FastifyInstance, parts: InspectorParts): void {
  const {sessions} = parts
  scope.get('/assets/:name', (request, reply) => {
    const asset = assetOf((request.params as {name: string}).name)
    if (asset === undefined)
      throw new ApiError('NOT_FOUND', 'No such file; was the inspector built (npm run build)?')
    const versioned = (request.query as {v?: unknown}).v === asset.version
    reply
      .header('etag', `"${asset.version}"`)
      .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
    if (request.headers['if-none-match'] === `"${asset.version}"`) return reply.code(304).send()
    return reply.code(200).type(asset.type).send(asset.body)
  })
  scope.get('/sign-in', (request, reply) => {
    const next = safeNext((request.query as {next?: unknown}).next)
    if (sessionOf(sessions, request) !== undefined) return reply.redirect(next, 303)
    return sendHtml(reply, 200, signInPage(next))
  })
  scope.post('/sign-in', (request, reply) => {
    const form = (request.body ?? {}) as Record<string, unknown>
    const next = safeNext(form.next)
    if (!fromSameOrigin(request)) return sendHtml(reply, 403, signInPage(next, 'Sign in from this page'))
    const outcome = parts.signIn(form.api_key, form.api_secret, request.ip)
    if (!outcome.ok) {
      reply.headers(outcome.headers)
      return sendHtml(reply, outcome.status, signInPage(next, outcome.problem))
    }
    const opened = sessions.open(outcome.partnerId)
    if (opened === undefined) {
      const problem = `The sandbox holds ${MAX_SESSIONS.toLocaleString('en-US')} inspector sessions, as many as it keeps: try again once some end`
      return sendHtml(reply, 503, signInPage(next, problem))
    }
    return reply.header('set-cookie', sessionCookie(opened.cookie)).redirect(next, 303)
  })
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?', 1)[0] ?? INSPECTOR_PATH
    if (path.startsWith(`${INSPECTOR_PATH}/api/`))
      throw new ApiError('NOT_FOUND', `No inspector data at ${path}`)
    const found = sessionOf(sessions, request)
    if (found === undefined) {
      const next = encodeURIComponent(safeNext(request.url))
      return reply.redirect(`${INSPECTOR_PATH}/sign-in?next=${next}`, 303)
    }
    const {partnerId, csrfToken} = found.session
    const preloaded = await preloadFor(parts.service, partnerId, path)
    return sendHtml(
      reply,
      200,
      appPage({partnerId, csrfToken, name: parts.service.nameOf(partnerId)}, preloaded),
    )
  }
  scope.get('/', page)
  scope.get('/*', page)
}

/** The data the pages read, each only for a signed-in browser and its partner. */
function dataRoutes(scope: FastifyInstance, parts: InspectorParts): void {
  const {sessions, service} = parts
  scope.get('/api/session', (request, reply) => {
    const {session} = requireSession(sessions, request)
    const answer: InspectorSession = {
      partnerId: session.partnerId,
      name: service.nameOf(session.partnerId),
      csrfToken: session.csrfToken,
    }
    return sendJson(reply, 200, answer)
  })
  scope.get('/api/read/:operation', async (request, reply) => {
    const {session} = requireSession(sessions, request)
    const {operation} = request.params as {operation: string}
    if (!READS.has(operation)) throw new ApiError('NOT_FOUND', `The inspector reads no ${operation}`)
    const {id, ...query} = request.query as Record<string, unknown>
    const found = await service.read(session.partnerId, operation as InspectorRead, {
      id: typeof id === 'string' ? id : undefined,
      query,
    })
    return sendJson(reply, 200, found)
  })
  scope.get('/api/search', async (request, reply) => {
    const {session} = requireSession(sessions, request)
    const {q} = request.query as {q?: unknown}
    return sendJson(reply, 200, await service.search(session.partnerId, typeof q === 'string' ? q : ''))
  })
  scope.get('/api/users/:id/timeline', async (request, reply) => {
    const {session} = requireSession(sessions, request)
    const {cursor, events} = request.query as {cursor?: unknown; events?: unknown}
    const {id} = request.params as {id: string}
    const page = await timelinePage(service, session.partnerId, id, {
      cursor: typeof cursor === 'string' ? cursor : undefined,
      events: events === '1' || events === 'true',
    })
    return sendJson(reply, 200, page)
  })
  scope.get('/api/stream', (request, reply) => {
    const {session, key} = requireSession(sessions, request)
    reply.hijack()
    const res = reply.raw
    if (parts.live.full(session.partnerId)) {
      res.writeHead(429, {...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8'})
      res.end('Too many open inspector pages for this partner')
      return
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    })
    parts.live.open(session.partnerId, key, res)
  })
}

/** The two changes the inspector makes, and signing out: each needs the session's CSRF token. */
function changeRoutes(scope: FastifyInstance, parts: InspectorParts): void {
  const {sessions, service, live} = parts
  scope.post('/api/events/:id/resend', async (request, reply) => {
    const {session} = requireChange(sessions, request)
    const {id} = request.params as {id: string}
    const result = await service.resend(session.partnerId, id)
    live.notify(session.partnerId, [id])
    return sendJson(reply, 201, result)
  })
  scope.post('/api/clock/advance', async (request, reply) => {
    const {session} = requireChange(sessions, request)
    const reading = await service.advance(session.partnerId, request.body ?? {})
    live.notify(session.partnerId, ['clock'])
    return sendJson(reply, 200, reading)
  })
  scope.post('/sign-out', (request, reply) => {
    const {key} = requireChange(sessions, request)
    sessions.close(key)
    return reply.header('set-cookie', CLEARED_COOKIE).code(204).send()
  })
}
