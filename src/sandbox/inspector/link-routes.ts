import type {FastifyInstance} from 'fastify'
import {
  INSPECTOR_LINK,
  INSPECTOR_LINKS,
  INSPECTOR_PATH,
  type InspectorLink,
} from '../../contract/inspector.js'
import {ApiError} from '../http/api-error.js'
import {fromLoopback, ownUrlOf} from '../http/local-address.js'
import type {SignInLinks} from './links.js'
import {signInPage} from './pages.js'
import {sendHtml, sendJson, sessionCookie} from './requests.js'
import {MAX_SESSIONS, type Sessions} from './sessions.js'

/** What the sign-in links are served from. */
export interface LinkParts {
  links: SignInLinks
  sessions: Sessions
  /** The partner of a request's credentials, as the sandbox's control routes take them; throws when refused. */
  partnerOf(authorization: string | undefined): Promise<string>
}

const LOOPBACK_ONLY = 'Sign-in links are for a browser on the machine that runs the sandbox'

/**
 * One-time sign-in links (docs/inspector.md#sign-in-links): a partner's client mints one with its
 * credentials, and a plain GET of it signs a browser in and lands it on the inspector, once, within
 * a minute. Both ends answer only a socket from loopback, whatever address the sandbox listens on.
 */
export function linkRoutes(scope: FastifyInstance, parts: LinkParts): void {
  const {links, sessions} = parts
  // Relative to the scope's prefix (INSPECTOR_PATH).
  scope.post(INSPECTOR_LINKS.slice(INSPECTOR_PATH.length), async (request, reply) => {
    if (!fromLoopback(request)) throw new ApiError('INSUFFICIENT_PERMISSIONS', LOOPBACK_ONLY)
    const partnerId = await parts.partnerOf(request.headers.authorization)
    const {token, expiresAtMs} = links.mint(partnerId)
    const link: InspectorLink = {
      url: `${ownUrlOf(request)}${INSPECTOR_LINK}?token=${token}`,
      expiresAt: new Date(expiresAtMs).toISOString(),
    }
    return sendJson(reply, 201, link)
  })
  scope.get(INSPECTOR_LINK.slice(INSPECTOR_PATH.length), (request, reply) => {
    if (!fromLoopback(request)) return sendHtml(reply, 403, signInPage(INSPECTOR_PATH, LOOPBACK_ONLY))
    const partnerId = links.redeem((request.query as {token?: unknown}).token)
    if (partnerId === undefined) {
      const problem =
        'This sign-in link was used already or has expired: run payctl sandbox ui for another, or sign in here'
      return sendHtml(reply, 401, signInPage(INSPECTOR_PATH, problem))
    }
    const opened = sessions.open(partnerId)
    if (opened === undefined) {
      const problem = `The sandbox holds ${MAX_SESSIONS.toLocaleString('en-US')} inspector sessions, as many as it keeps: try again once some end`
      return sendHtml(reply, 503, signInPage(INSPECTOR_PATH, problem))
    }
    return reply.header('set-cookie', sessionCookie(opened.cookie)).redirect(`${INSPECTOR_PATH}/`, 303)
  })
}
