import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {endpoints} from '../../contract/api/endpoints.js'
import {INSPECTOR_PATH} from '../../contract/inspector.js'
import {onEventRecorded, subjectsOf} from '../event-log.js'
import type {Feature} from '../feature.js'
import type {} from '../http/fastify-request.js'
import type {Database} from '../storage/database.js'
import {Authenticator} from '../tenancy/authenticate.js'
import {SignInLinks} from './links.js'
import {type InspectorParts, inspectorRoutes} from './routes.js'
import {InspectorService} from './service.js'
import {Sessions} from './sessions.js'
import {signInWith} from './sign-in.js'
import {LiveStreams} from './stream.js'

/**
 * The browser inspector at /_sandbox/ui (docs/inspector.md): a signed-in partner's users,
 * wallets, transactions, timelines, events and requests, updated live. It keeps nothing in the
 * data file: its sessions live in memory, tied to their partner, and end with it.
 */
export const inspector: Feature = {
  name: 'inspector',
  serve(context) {
    if (context.settings.ui === false) return {routes: []}
    const sessions = new Sessions()
    const links = new SignInLinks(context.now)
    const live = new LiveStreams()
    sessions.onEnd((key) => live.endSession(key))
    context.partnerRows.afterDelete((partnerId, which) => {
      if (which !== 'all') return
      sessions.endPartner(partnerId)
      links.endPartner(partnerId)
    })
    const authenticator = new Authenticator(context.partners, context.tokens)
    const parts: InspectorParts = {
      service: new InspectorService(context),
      sessions,
      live,
      signIn: signInWith(context),
      links,
      // A sign-in link is the partner's own act, as moving its clock is: the same credentials.
      partnerOf: async (authorization) => {
        const principal = await authenticator.authenticate(endpoints.sandboxClock, authorization)
        return principal!.partner.partnerId
      },
      log: context.log,
    }
    return {
      routes: [],
      attach: (app) => attachInspector(app, parts, context.database),
      answers: {sent: (request, reply) => notifyChange(live, request, reply)},
    }
  },
}

/**
 * Serve the inspector's scope, and tell its open pages of every event of their partner's recorded
 * (by a request, due work or a fixture).
 */
function attachInspector(app: FastifyInstance, parts: InspectorParts, database: Database): void {
  const {live} = parts
  app.register(inspectorRoutes(parts), {prefix: INSPECTOR_PATH})
  // An event's data is walked for its ids only for a partner with a page open.
  const stop = onEventRecorded(database, (event) => {
    if (live.watched(event.partnerId)) live.notify(event.partnerId, [event.id, ...subjectsOf(event.data)])
  })
  // Open streams would hold the server's close until they end.
  app.addHook('preClose', (done) => {
    stop()
    live.closeAll()
    done()
  })
}

/** Tell a partner's open pages of a change the API answered (a user created records no event). */
function notifyChange(live: InspectorParts['live'], request: FastifyRequest, reply: FastifyReply): void {
  const change = request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400
  if (change && request.partnerId !== undefined)
    live.notify(request.partnerId, [request.url.split('?', 1)[0]!])
}
