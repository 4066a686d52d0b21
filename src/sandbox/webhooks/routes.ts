import {endpoints} from '../../contract/endpoints.js'
import {instantOf} from '../../contract/fields.js'
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  type Delivery,
  type DeliveryWithAttempts,
  type EventDetail,
  type EventList,
  type EventSummary,
  type ListenSession,
  type TriggerResult,
  unknownEventSelector,
  type Webhook,
  type WebhookWithSecret,
} from '../../contract/webhooks.js'
import {
  type OperationInput,
  type PathInput,
  partnerOf,
  type RouteSpec,
  route,
  type ServingContext,
} from '../context.js'
import {aboutCondition} from '../event-log.js'
import {ApiError} from '../http/api-error.js'
import {PagedList} from '../http/pagination.js'
import {envelopeOf, type StoredEvent} from './envelope.js'
import {type AttemptRow, type DeliveryRow, type EndpointRow, LISTEN_REPLAY_WINDOW_MS} from './rows.js'
import type {WebhookService} from './service.js'
import type {WebhookStore} from './store.js'
import {runTrigger} from './trigger.js'
import {HEARTBEAT_SECONDS} from './tunnel.js'
import {displayUrl, type UrlPolicy, urlProblem} from './url-policy.js'

const iso = (ms: number) => new Date(ms).toISOString()

/** What the routes need of the running webhook machinery. */
function toWebhook(row: EndpointRow, now: number): Webhook {
  const overlap = row.previous_secret !== null && (row.previous_secret_expires_at ?? 0) > now
  return {
    id: row.id,
    // Registrations from before URL credentials were refused may hold some: never shown.
    url: displayUrl(row.url),
    events: JSON.parse(row.events) as string[],
    status: 'enabled',
    secretLast4: row.secret.slice(-4),
    previousSecretExpiresAt: overlap ? iso(row.previous_secret_expires_at!) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

function withSecret(row: EndpointRow, now: number): WebhookWithSecret {
  return {...toWebhook(row, now), secret: row.secret}
}

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

/** Refuse unknown event names, suggesting the closest known one. */
function checkSelectors(selectors: string[], field: string): string[] {
  const bad = unknownEventSelector(selectors)
  if (bad !== undefined) {
    const hint = bad.suggestion === undefined ? '' : `; did you mean "${bad.suggestion}"?`
    const message = `unknown event "${bad.selector}"${hint}`
    throw new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${message}`, {
      field,
      value: bad.selector,
      ...(bad.suggestion === undefined ? {} : {suggestion: bad.suggestion}),
      issues: [{path: field, code: 'unknown_event', message}],
    })
  }
  return [...new Set(selectors)]
}

/** Refuse a URL the sandbox will not deliver to (docs/webhooks.md, "Where deliveries may go"). */
function checkUrl(url: string, policy: UrlPolicy): void {
  const problem = urlProblem(url, policy)
  if (problem === undefined) return
  throw new ApiError('VALIDATION_ERROR', `Invalid request body: url: ${problem.message}`, {
    field: 'url',
    issues: [{path: 'url', ...problem}],
  })
}

function endpointOf(store: WebhookStore, input: PathInput<'id'>): EndpointRow {
  const id = input.params.id
  const row = store.endpoint(partnerOf(input), id)
  if (row === undefined) throw new ApiError('NOT_FOUND', `No webhook ${id}`, {resource: 'webhook', id})
  return row
}

function eventOf(store: WebhookStore, input: PathInput<'id'>): StoredEvent {
  const id = input.params.id
  const event = store.event(id)
  if (event === undefined || event.partner_id !== partnerOf(input)) {
    throw new ApiError('NOT_FOUND', `No event ${id}`, {resource: 'event', id})
  }
  return event
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

/** Registrations, the delivery log, listen sessions and the trigger. */
// Long: a list of short operations, each handing off to the store or the runtime.
export function webhookRoutes(
  ctx: Pick<
    ServingContext,
    'database' | 'cursors' | 'events' | 'settings' | 'operation' | 'clock' | 'money' | 'tenants' | 'faults'
  >,
  runtime: WebhookService,
): RouteSpec[] {
  const {store} = runtime
  const events = eventList(ctx)
  return [
    route({
      endpoint: endpoints.createWebhook,
      run(input): WebhookWithSecret {
        const {body} = input
        checkUrl(body.url, {exposed: ctx.settings.listensBeyondLoopback === true})
        const events = checkSelectors(body.events, 'events')
        const now = Date.now()
        return withSecret(store.createEndpoint(partnerOf(input), body.url, events, now), now)
      },
    }),
    route({
      endpoint: endpoints.listWebhooks,
      run(input) {
        const now = Date.now()
        return {webhooks: store.endpoints(partnerOf(input)).map((row) => toWebhook(row, now))}
      },
    }),
    route({
      endpoint: endpoints.getWebhook,
      run: (input): Webhook => toWebhook(endpointOf(store, input), Date.now()),
    }),
    route({
      endpoint: endpoints.deleteWebhook,
      run(input) {
        const row = endpointOf(store, input)
        store.deleteEndpoint(row, Date.now())
        ctx.faults.removeTarget(row.partner_id, row.id)
        return {id: row.id, deleted: true as const}
      },
    }),
    route({
      endpoint: endpoints.rotateWebhookSecret,
      run(input): WebhookWithSecret {
        const row = endpointOf(store, input)
        const now = Date.now()
        return withSecret(
          store.rotateSecret(row, input.body.expiresIn ?? DEFAULT_ROTATION_OVERLAP_SECONDS, now),
          now,
        )
      },
    }),
    route({
      endpoint: endpoints.openListenSession,
      run(input): ListenSession {
        const {body} = input
        // Without events, a new session selects every event and an existing one keeps its own.
        const events = body.events === undefined ? undefined : checkSelectors(body.events, 'events')
        const now = Date.now()
        // One transaction with the faults: a session whose faults are refused (FAULT_LIMIT) stays unopened.
        const {session, resumed, pending} = ctx.database.transaction(() => {
          const opened = store.openSession(
            partnerOf(input),
            body.listenerKey,
            events,
            runtime.isConnected,
            now,
          )
          const {partner_id: partnerId, id} = opened.session
          // The listener's delivery faults (its flags): given, they replace the session's; null removes them.
          if (body.faults === null) ctx.faults.removeTarget(partnerId, id)
          else if (body.faults !== undefined)
            ctx.faults.setDelivery(partnerId, {listenSessionId: id}, body.faults, new Date(now))
          return opened
        })
        return {
          id: session.id,
          secret: session.secret,
          events: JSON.parse(session.events) as string[],
          resumed,
          pending,
          socketPath: `/v1/webhooks/listen-sessions/${session.id}/socket`,
          ticket: runtime.issueTicket(session.id, now),
          heartbeatSeconds: HEARTBEAT_SECONDS,
          replayWindowSeconds: LISTEN_REPLAY_WINDOW_MS / 1000,
          createdAt: session.created_at,
        }
      },
    }),
    route({
      endpoint: endpoints.endListenSession,
      run(input) {
        const {id} = input.params
        if (!runtime.endSession(partnerOf(input), id, Date.now())) {
          throw new ApiError('NOT_FOUND', `No listen session ${id}`, {resource: 'listen_session', id})
        }
        return {id, deleted: true as const}
      },
    }),
    route({
      // Served here, beside the registrations it names; every fault is listed and removed by the faults feature.
      endpoint: endpoints.addDeliveryFault,
      run(input) {
        const {webhookId, ...settings} = input.body
        if (Object.keys(settings).every((k) => k === 'seed')) {
          throw new ApiError('VALIDATION_ERROR', 'Invalid request body: a delivery fault needs an effect', {
            field: 'duplicate',
            issues: [
              {
                path: '',
                code: 'invalid_fault',
                message: 'give duplicate, reorder, delayMs, failFirst or tamperSignature',
              },
            ],
          })
        }
        const row = store.endpoint(partnerOf(input), webhookId)
        if (row === undefined) {
          throw new ApiError('NOT_FOUND', `No webhook ${webhookId}`, {resource: 'webhook', id: webhookId})
        }
        return ctx.faults.setDelivery(row.partner_id, {webhookId: row.id}, settings, new Date())
      },
    }),
    route({
      endpoint: endpoints.listEvents,
      run(input): EventList {
        const {query} = input
        const partnerId = partnerOf(input)
        const {rows, hasMore, nextCursor} = events.page(partnerId, eventFilters(ctx, partnerId, query), query)
        return {
          events: rows.map(
            (row): EventSummary => ({...envelopeOf(row), deliveries: store.deliveryCounts(row.id)}),
          ),
          hasMore,
          nextCursor,
        }
      },
    }),
    route({
      endpoint: endpoints.getEvent,
      run(input): EventDetail {
        const event = eventOf(store, input)
        return {
          ...envelopeOf(event),
          deliveries: store.deliveriesOf(event.id).map((row) => ({
            ...toDelivery(row),
            attemptLog: store.attemptsOf(row.id).map(toAttempt),
          })),
          deliveryCounts: store.deliveryCounts(event.id),
        }
      },
    }),
    route({
      endpoint: endpoints.resendEvent,
      run(input) {
        const {body} = input
        const event = eventOf(store, input)
        let target: EndpointRow | undefined
        if (body.webhookId !== undefined) {
          target = store.endpoint(partnerOf(input), body.webhookId)
          if (target === undefined) {
            throw new ApiError('NOT_FOUND', `No webhook ${body.webhookId}`, {
              resource: 'webhook',
              id: body.webhookId,
            })
          }
        }
        const now = Date.now()
        // Each time is a delivery of its own to every target, recorded in the event's log.
        const deliveries = Array.from({length: body.times ?? 1}, () =>
          store.resend(event, target, now),
        ).flat()
        runtime.nudge()
        return {eventId: event.id, deliveries: deliveries.map(toDelivery)}
      },
    }),
    route({
      endpoint: endpoints.sandboxTrigger,
      run(input): TriggerResult {
        const {event: type, ...overrides} = input.body
        const partnerId = partnerOf(input)
        // All or nothing, also when the request carries no Idempotency-Key (which would wrap it anyway).
        const {objects, event} = ctx.database.transaction(() => {
          const before = store.maxEventSeq()
          const {objects, eventId} = runTrigger(type, overrides, {
            lookup: ctx.operation,
            caller: input,
            transaction: (fn) => ctx.database.transaction(fn),
            settings: {settleAfterSeconds: ctx.settings.settleAfterSeconds},
            recorded: () => store.latestEvent(partnerId, type, before),
          })
          return {objects, event: store.event(eventId)!}
        })
        return {
          event: envelopeOf(event),
          synthesized: false,
          objects: Object.fromEntries(
            Object.entries(objects)
              .filter(([, o]) => typeof o?.id === 'string')
              .map(([name, o]) => [name, o.id as string]),
          ),
        }
      },
    }),
  ]
}
