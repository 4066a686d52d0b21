import {instantOf} from '../../contract/fields.js'
import type {
  Delivery,
  DeliveryWithAttempts,
  EventDetail,
  EventList,
  EventSummary,
  ResendResult,
} from '../../contract/webhooks.js'
import type {OperationInput, ServingContext} from '../context.js'
import {aboutCondition} from '../event-log.js'
import {ApiError} from '../http/api-error.js'
import {PagedList} from '../http/pagination.js'
import {envelopeOf, type StoredEvent} from './envelope.js'
import {registrationOf} from './registrations.js'
import {type AttemptRow, type DeliveryRow, type EndpointRow, iso} from './rows.js'
import type {WebhookService} from './service.js'
import {displayUrl} from './url-policy.js'

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    eventId: row.event_id,
    webhookId: row.endpoint_id,
    listenSessionId: row.session_id,
    url: row.url === null ? null : displayUrl(row.url),
    status: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.state === 'pending' && row.next_attempt_at !== null ? iso(row.next_attempt_at) : null,
    lastStatus: row.last_status,
    lastError: row.last_error,
    resendOf: row.resend_of,
    injected: row.injected,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  }
}

function toAttempt(row: AttemptRow): DeliveryWithAttempts['attemptLog'][number] {
  return {
    attempt: row.attempt,
    via: row.via,
    at: row.started_at,
    signatureTimestamp: row.signature_t,
    status: row.status,
    durationMs: row.duration_ms,
    error: row.error,
    responseBody: row.response_body,
    injected: row.injected,
  }
}

type EventFilter = 'type' | 'delivery' | 'userId' | 'walletId' | 'transactionId' | 'since' | 'until'

/** What an event is about is in event_subjects (events.ts); a user's events are also their wallets'. */
const ABOUT = aboutCondition('?')

function eventList(ctx: Pick<ServingContext, 'database' | 'cursors'>) {
  return new PagedList<StoredEvent, EventFilter>(ctx.database, ctx.cursors, {
    name: 'events',
    table: 'events',
    order: 'newest first',
    filters: {
      type: 'type = ?',
      delivery: 'EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND d.state = ?)',
      userId: aboutCondition('SELECT ? UNION ALL SELECT id FROM wallets WHERE user_id = ?'),
      walletId: ABOUT,
      transactionId: ABOUT,
      since: 'created_at >= ?',
      until: 'created_at < ?',
    },
  })
}

/**
 * The filters of a page of events, checked and resolved: a user, wallet or transaction that is not
 * the caller's is 404 (a mistyped id is told, not answered with an empty list), and a duration is
 * counted back from the sandbox clock.
 */
function eventFilters(
  ctx: Pick<ServingContext, 'clock' | 'money' | 'tenants'>,
  partnerId: string,
  query: OperationInput<'listEvents'>['query'],
): {[F in EventFilter]?: string | undefined} {
  if (query.userId !== undefined) ctx.tenants.requireUser(partnerId, query.userId)
  if (query.walletId !== undefined) ctx.money.wallet(query.walletId, partnerId)
  if (query.transactionId !== undefined) ctx.money.transaction(query.transactionId, partnerId)
  const now = ctx.clock.nowMs(partnerId)
  return {
    ...query,
    since: query.since === undefined ? undefined : instantOf(query.since, now),
    until: query.until === undefined ? undefined : instantOf(query.until, now),
  }
}

/**
 * A partner's events and what became of them (docs/webhooks.md): pages of events with their
 * delivery counts, one event with every delivery and attempt, and deliveries sent again.
 */
export class DeliveryLog {
  readonly #events: ReturnType<typeof eventList>

  constructor(
    private readonly runtime: WebhookService,
    private readonly ctx: Pick<ServingContext, 'database' | 'cursors' | 'clock' | 'money' | 'tenants'>,
  ) {
    this.#events = eventList(ctx)
  }

  /** A page of the partner's events, newest first, each with how its deliveries stand. */
  list(partnerId: string, query: OperationInput<'listEvents'>['query']): EventList {
    const {store} = this.runtime
    const {rows, hasMore, nextCursor} = this.#events.page(
      partnerId,
      eventFilters(this.ctx, partnerId, query),
      query,
    )
    return {
      events: rows.map(
        (row): EventSummary => ({...envelopeOf(row), deliveries: store.deliveryCounts(row.id)}),
      ),
      hasMore,
      nextCursor,
    }
  }

  /** The partner's event `id`, with each of its deliveries and their attempts. */
  get(partnerId: string, id: string): EventDetail {
    const {store} = this.runtime
    const event = this.#event(partnerId, id)
    return {
      ...envelopeOf(event),
      deliveries: store.deliveriesOf(event.id).map((row) => ({
        ...toDelivery(row),
        attemptLog: store.attemptsOf(row.id).map(toAttempt),
      })),
      deliveryCounts: store.deliveryCounts(event.id),
    }
  }

  /** Deliver the event again, `times` times, to one registration or to every target it had. */
  resend(partnerId: string, id: string, body: OperationInput<'resendEvent'>['body']): ResendResult {
    const {store} = this.runtime
    const event = this.#event(partnerId, id)
    const target: EndpointRow | undefined =
      body.webhookId === undefined ? undefined : registrationOf(store, partnerId, body.webhookId)
    const now = Date.now()
    // Each time is a delivery of its own to every target, recorded in the event's log.
    const deliveries = Array.from({length: body.times ?? 1}, () => store.resend(event, target, now)).flat()
    this.runtime.nudge()
    return {eventId: event.id, deliveries: deliveries.map(toDelivery)}
  }

  /** The partner's event `id`, or 404. */
  #event(partnerId: string, id: string): StoredEvent {
    const event = this.runtime.store.event(id)
    if (event === undefined || event.partner_id !== partnerId) {
      throw new ApiError('NOT_FOUND', `No event ${id}`, {resource: 'event', id})
    }
    return event
  }
}
