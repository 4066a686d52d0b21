import type {FastifyReply, FastifyRequest} from 'fastify'
import {CSRF_HEADER, INSPECTOR_COOKIE, INSPECTOR_PATH} from '../../contract/inspector.js'
import {ApiError} from '../http/api-error.js'
import {type Session, type Sessions, sameToken} from './sessions.js'

/** How the inspector's answers read a request: its session, its origin, its cookie. */

/** The value of one cookie of the request. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** The request's session, if its cookie names a live one. */
export function sessionOf(
  sessions: Sessions,
  request: FastifyRequest,
): {session: Session; key: string} | undefined {
  return sessions.find(cookieOf(request, INSPECTOR_COOKIE))
}

/** The request's session, or SIGN_IN_REQUIRED. */
export function requireSession(sessions: Sessions, request: FastifyRequest): {session: Session; key: string} {
  const found = sessionOf(sessions, request)
  if (found === undefined) throw new ApiError('SIGN_IN_REQUIRED', 'Sign in to the inspector first')
  return found
}

/**
 * Whether a change comes from the inspector's own pages: what the browser says of where the
 * request came from (Sec-Fetch-Site, Origin) names no other site. Browsers send them; a client
 * that sends neither is not a browser another site can drive.
 */
export function fromSameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false
  const origin = request.headers.origin
  if (origin === undefined) return true
  return origin === `http://${request.headers.host}` || origin === `https://${request.headers.host}`
}

/** A change's session: signed in, from the inspector's own pages, with the session's CSRF token. */
export function requireChange(sessions: Sessions, request: FastifyRequest): {session: Session; key: string} {
  const found = requireSession(sessions, request)
  const token = request.headers[CSRF_HEADER]
  if (!fromSameOrigin(request) || typeof token !== 'string' || !sameToken(token, found.session.csrfToken)) {
    throw new ApiError(
      'CSRF_TOKEN_INVALID',
      `A change needs the ${CSRF_HEADER} header of this session, from the inspector's own pages`,
    )
  }
  return found
}

/** The session cookie: the browser sends it only to the inspector, only from its own pages. */
export function sessionCookie(value: string): string {
  return `${INSPECTOR_COOKIE}=${value}; Path=${INSPECTOR_PATH}; HttpOnly; SameSite=Strict`
}

/** The cookie that ends the session in the browser. */
export const CLEARED_COOKIE = `${INSPECTOR_COOKIE}=; Path=${INSPECTOR_PATH}; HttpOnly; SameSite=Strict; Max-Age=0`

/** Send a JSON answer (exact amounts included: the records carry them as raw JSON numbers). */
export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(value))
}

/** A page of HTML. */
export function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(html)
}
