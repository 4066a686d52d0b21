import type {ListenSession} from '../../contract/webhooks.js'
import type {OperationInput, SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {checkSelectors} from './registrations.js'
import {LISTEN_REPLAY_WINDOW_MS} from './rows.js'
import type {WebhookService} from './service.js'
import {HEARTBEAT_SECONDS} from './tunnel.js'

/**
 * The listen sessions of `payctl webhooks listen` as the API opens and ends them (docs/webhooks.md):
 * a session collects its events' deliveries until it ends; its listener connects with a ticket.
 */
export class ListenSessions {
  constructor(
    private readonly runtime: WebhookService,
    private readonly ctx: Pick<SandboxContext, 'database' | 'faults'>,
  ) {}

  /**
   * Open the session of a listener key, or resume the one it has, with the listener's delivery
   * faults (its flags); the answer carries a ticket for its socket.
   */
  open(partnerId: string, body: OperationInput<'openListenSession'>['body']): ListenSession {
    const {database, faults} = this.ctx
    const {store} = this.runtime
    // Without events, a new session selects every event and an existing one keeps its own.
    const events = body.events === undefined ? undefined : checkSelectors(body.events, 'events')
    const now = Date.now()
    // One transaction with the faults: a session whose faults are refused (FAULT_LIMIT) stays unopened.
    const {session, resumed, pending} = database.transaction(() => {
      const opened = store.openSession(partnerId, body.listenerKey, events, this.runtime.isConnected, now)
      const {id} = opened.session
      // The listener's delivery faults (its flags): given, they replace the session's; null removes them.
      if (body.faults === null) faults.removeTarget(opened.session.partner_id, id)
      else if (body.faults !== undefined)
        faults.setDelivery(opened.session.partner_id, {listenSessionId: id}, body.faults, new Date(now))
      return opened
    })
    return {
      id: session.id,
      secret: session.secret,
      events: JSON.parse(session.events) as string[],
      resumed,
      pending,
      socketPath: `/v1/webhooks/listen-sessions/${session.id}/socket`,
      ticket: this.runtime.issueTicket(session.id, now),
      heartbeatSeconds: HEARTBEAT_SECONDS,
      replayWindowSeconds: LISTEN_REPLAY_WINDOW_MS / 1000,
      createdAt: session.created_at,
    }
  }

  /** End the partner's session `id`: it collects nothing more and its listener is told so. */
  end(partnerId: string, id: string): {id: string; deleted: true} {
    if (!this.runtime.endSession(partnerId, id, Date.now())) {
      throw new ApiError('NOT_FOUND', `No listen session ${id}`, {resource: 'listen_session', id})
    }
    return {id, deleted: true}
  }
}
