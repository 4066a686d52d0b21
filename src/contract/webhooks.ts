import {closest, distance} from 'fastest-levenshtein'
import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {notShown} from './api/surface.js'
import {EVENT_NAMES, EventEnvelopeSchema, type EventName} from './events/envelope.js'
import {DeliveryFaultSettingsSchema} from './faults.js'
import {Id, pageQuery, TimeBound, Timestamp, URL_MAX_LENGTH} from './fields.js'
import {overrideProblems, TriggerSetSchema} from './trigger-overrides.js'

/**
 * Webhooks: registrations, the delivery log, listen sessions (the CLI's tunnel) and the sandbox's
 * trigger. The spec shows only `POST /webhooks` with `url` and `events`; the rest of these paths and
 * shapes are the sandbox's, documented in docs/webhooks.md.
 */

/** Subscribes to every event. `prefix.*` subscribes to the events whose names start with `prefix.`. */
export const ALL_EVENTS = '*'

/** Whether an event selector (`wallet.created`, `bnplsvc.*`, `*`) names at least one known event. */
export function isEventSelector(selector: string): boolean {
  if (selector === ALL_EVENTS) return true
  if (selector.endsWith('.*')) {
    const prefix = selector.slice(0, -1)
    return EVENT_NAMES.some((name) => name.startsWith(prefix))
  }
  return (EVENT_NAMES as readonly string[]).includes(selector)
}

/** Whether `event` is selected by any of `selectors`. */
export function selectsEvent(selectors: readonly string[], event: string): boolean {
  return selectors.some(
    (s) => s === ALL_EVENTS || s === event || (s.endsWith('.*') && event.startsWith(s.slice(0, -1))),
  )
}

/** The known event name closest to a misspelt one, when it is close enough to be what was meant. */
export function closestEventName(name: string): EventName | undefined {
  const lower = name.toLowerCase()
  const best = closest(lower, [...EVENT_NAMES]) as EventName
  return distance(lower, best) <= Math.max(2, Math.floor(best.length / 4)) ? best : undefined
}

/** The first selector that names no event, with a suggestion, or undefined when all are fine. */
export function unknownEventSelector(
  selectors: readonly string[],
): {selector: string; suggestion: EventName | undefined} | undefined {
  const bad = selectors.find((s) => !isEventSelector(s))
  return bad === undefined ? undefined : {selector: bad, suggestion: closestEventName(bad)}
}

export const WebhookRegistrationInputSchema = z
  .strictObject({url: z.url().max(URL_MAX_LENGTH), events: z.array(z.string().max(100)).min(1).max(100)})
  .meta({id: 'WebhookRegistrationRequest'})

export const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()).describe('event names, `prefix.*` or `*`'),
    status: z.literal('enabled'),
    secretLast4: z.string().describe('last four characters of the current signing secret'),
    previousSecretExpiresAt: Timestamp.nullable().describe(
      'while a rotated-out secret still signs deliveries (alongside the new one): until when',
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({id: 'Webhook'})
export type Webhook = z.infer<typeof WebhookSchema>

export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z.string().describe('the whsec_… signing secret: returned only when created or rotated'),
}).meta({id: 'WebhookWithSecret'})
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>

export const WebhookListSchema = z.object({webhooks: z.array(WebhookSchema)}).meta({id: 'WebhookList'})
export type WebhookList = z.infer<typeof WebhookListSchema>

export const DeletedWebhookSchema = z
  .object({id: z.string(), deleted: z.literal(true)})
  .meta({id: 'DeletedWebhook'})

/** Longest overlap during which a rotated-out secret still signs: 7 days. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86_400
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400

export const RotateSecretRequestSchema = z
  .strictObject({
    expiresIn: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATION_OVERLAP_SECONDS)
      .optional()
      .describe('seconds the old secret keeps signing beside the new one; 0 retires it now (default 86400)'),
  })
  .meta({id: 'RotateSecretRequest'})
export type RotateSecretInput = z.infer<typeof RotateSecretRequestSchema>

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const

export const DeliveryAttemptSchema = z
  .object({
    attempt: z.number().int(),
    via: z.enum(['http', 'listen']),
    at: Timestamp,
    signatureTimestamp: z.number().int().describe('the t= of this attempt’s signature'),
    status: z.number().int().nullable().describe('HTTP status of the receiver; null when none came'),
    durationMs: z.number().int().nullable(),
    error: z.string().nullable(),
    responseBody: z.string().nullable().describe('first 2 KiB of the receiver’s answer'),
    injected: z.string().nullable().describe('what a delivery fault did to this attempt (sandbox only)'),
  })
  .meta({id: 'DeliveryAttempt'})
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>

export const DeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string(),
    webhookId: z.string().nullable().describe('the registration delivered to, or null for a listen session'),
    listenSessionId: z.string().nullable(),
    url: z.string().nullable(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    nextAttemptAt: Timestamp.nullable(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    resendOf: z.string().nullable().describe('the delivery this one resends'),
    injected: z
      .string()
      .nullable()
      .describe('what a delivery fault did to this delivery: an injected duplicate, a delay (sandbox only)'),
    createdAt: Timestamp,
    completedAt: Timestamp.nullable(),
  })
  .meta({id: 'Delivery'})
export type Delivery = z.infer<typeof DeliverySchema>

export const DeliveryWithAttemptsSchema = DeliverySchema.extend({
  attemptLog: z.array(DeliveryAttemptSchema),
}).meta({id: 'DeliveryWithAttempts'})
export type DeliveryWithAttempts = z.infer<typeof DeliveryWithAttemptsSchema>

export const DeliveryCountsSchema = z
  .object({
    total: z.number().int(),
    pending: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
  })
  .meta({id: 'DeliveryCounts'})

/** A recorded event: the envelope its deliveries carry, and how its deliveries fared. */
export const EventSummarySchema = EventEnvelopeSchema.extend({deliveries: DeliveryCountsSchema}).meta({
  id: 'EventSummary',
})
export type EventSummary = z.infer<typeof EventSummarySchema>

export const EventDetailSchema = EventEnvelopeSchema.extend({
  deliveries: z.array(DeliveryWithAttemptsSchema).describe('the newest 100 deliveries, oldest first'),
  deliveryCounts: DeliveryCountsSchema.describe('every delivery of the event, shown or not'),
}).meta({id: 'EventDetail'})
export type EventDetail = z.infer<typeof EventDetailSchema>

export const ListEventsQuerySchema = z
  .strictObject({
    type: z.enum(EVENT_NAMES).optional(),
    delivery: z.enum(DELIVERY_STATUSES).optional().describe('only events with a delivery in this state'),
    userId: Id.optional().describe(
      'sandbox extension: only events about this user, their wallets, and the transactions that touch their wallets',
    ),
    walletId: Id.optional().describe(
      'sandbox extension: only events about this wallet and the transactions that touch it',
    ),
    transactionId: Id.optional().describe(
      'sandbox extension: only events about this transaction (with the other leg of a transfer and its refunds)',
    ),
    since: TimeBound.optional().describe('sandbox extension: only events recorded at or after this time'),
    until: TimeBound.optional().describe('sandbox extension: only events recorded before this time'),
    ...pageQuery,
  })
  .meta({id: 'ListEventsQuery'})
export type ListEventsQuery = z.infer<typeof ListEventsQuerySchema>

export const EventListSchema = z
  .object({events: z.array(EventSummarySchema), hasMore: z.boolean(), nextCursor: z.string().nullable()})
  .meta({id: 'EventList'})
export type EventList = z.infer<typeof EventListSchema>

/** How many deliveries one resend may make to each target. */
export const MAX_RESEND_TIMES = 10

export const ResendEventRequestSchema = z
  .strictObject({
    webhookId: Id.optional().describe(
      'resend to this registration only (default: every registration that selects the event)',
    ),
    times: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESEND_TIMES)
      .optional()
      .describe(`deliveries to each target, 1 to ${MAX_RESEND_TIMES} (default 1)`),
  })
  .meta({id: 'ResendEventRequest'})

export const ResendResultSchema = z
  .object({eventId: z.string(), deliveries: z.array(DeliverySchema)})
  .meta({id: 'ResendResult'})
export type ResendResult = z.infer<typeof ResendResultSchema>

export const OpenListenSessionSchema = z
  .strictObject({
    listenerKey: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{8,200}$/)
      .describe('a stable, random key of the listening client (the CLI keeps one per profile)'),
    events: z
      .array(z.string().max(100))
      .min(1)
      .max(100)
      .optional()
      .describe(
        'event selectors; without them a new session selects every event and an existing one keeps its own. Deliveries waiting for the session that new selectors no longer select are given up',
      ),
    faults: DeliveryFaultSettingsSchema.nullable()
      .optional()
      .describe(
        "the session's delivery faults (docs/webhooks.md#delivery-faults): given, they replace its own; null removes them; absent keeps them",
      ),
  })
  .meta({id: 'OpenListenSessionRequest'})

export const ListenSessionSchema = z
  .object({
    id: z.string(),
    secret: z.string().describe('whsec_…: the same every time this listener key opens its session'),
    events: z.array(z.string()),
    resumed: z.boolean().describe('false when the session was created (or had expired) just now'),
    pending: z.number().int().describe('deliveries waiting for the listener'),
    socketPath: z.string().describe('WebSocket path below the base URL; add ?ticket=<ticket>'),
    ticket: z.string().describe('single-use, valid for 60 s'),
    heartbeatSeconds: z.number().int(),
    replayWindowSeconds: z.number().int(),
    createdAt: Timestamp,
  })
  .meta({id: 'ListenSession'})
export type ListenSession = z.infer<typeof ListenSessionSchema>

export const TriggerRequestSchema = z
  .strictObject({
    event: z.enum(EVENT_NAMES),
    user: Id.optional().describe('make the event about this existing user (usr_…) of the caller'),
    wallet: Id.optional().describe(
      'make the event about this existing wallet (wal_…) of the caller; its user and currency follow',
    ),
    set: TriggerSetSchema.optional(),
  })
  .superRefine((body, ctx) => {
    for (const p of overrideProblems(body.event, body)) {
      ctx.addIssue({code: 'custom', path: p.path, message: p.message, input: body})
    }
  })
  .meta({id: 'TriggerRequest'})
export type TriggerRequest = z.infer<typeof TriggerRequestSchema>

export const TriggerResultSchema = z
  .object({
    event: EventEnvelopeSchema,
    synthesized: z
      .boolean()
      .describe('always false: every event is recorded by its real flow (kept for older clients)'),
    objects: z.record(z.string(), z.string()).describe('ids of what the trigger created, by name'),
  })
  .meta({id: 'TriggerResult'})
export type TriggerResult = z.infer<typeof TriggerResultSchema>

const read = {a: 'webhooks:write', b: 'payments:read'} as const
const write = {a: 'webhooks:write', b: 'payments:create'} as const
const common = {tag: 'webhooks', auth: 'bearer', enveloped: true} as const

export const webhookEndpoints = {
  createWebhook: {
    ...common,
    operationId: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    summary: 'register a URL for events; the answer holds its signing secret, shown only here',
    scopes: write,
    body: WebhookRegistrationInputSchema,
    response: WebhookWithSecretSchema,
    surface: notShown<WebhookWithSecret>(),
    status: 201,
    errors: ['DUPLICATE_TRANSACTION', 'WEBHOOK_LIMIT'],
  },
  listWebhooks: {
    ...common,
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    summary: 'list webhook registrations, oldest first',
    scopes: read,
    response: WebhookListSchema,
    status: 200,
    errors: [],
  },
  getWebhook: {
    ...common,
    operationId: 'getWebhook',
    method: 'GET',
    path: '/webhooks/{id}',
    summary: 'get a webhook registration',
    scopes: read,
    response: WebhookSchema,
    status: 200,
    errors: ['NOT_FOUND'],
  },
  deleteWebhook: {
    ...common,
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{id}',
    summary: 'delete a webhook registration; its pending deliveries stop',
    scopes: write,
    response: DeletedWebhookSchema,
    status: 200,
    errors: ['NOT_FOUND'],
  },
  rotateWebhookSecret: {
    ...common,
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    summary: 'replace the signing secret; the old one keeps signing beside it for an overlap',
    scopes: write,
    body: RotateSecretRequestSchema,
    bodyOptional: true,
    response: WebhookWithSecretSchema,
    status: 200,
    errors: ['NOT_FOUND', 'DUPLICATE_TRANSACTION'],
  },
  openListenSession: {
    ...common,
    operationId: 'openListenSession',
    method: 'POST',
    path: '/webhooks/listen-sessions',
    summary: 'open (or resume) the listen session of a listener key and get a ticket for its WebSocket',
    scopes: write,
    body: OpenListenSessionSchema,
    response: ListenSessionSchema,
    status: 200,
    errors: ['DUPLICATE_TRANSACTION', 'LISTEN_SESSION_LIMIT', 'FAULT_LIMIT'],
  },
  endListenSession: {
    ...common,
    operationId: 'endListenSession',
    method: 'DELETE',
    path: '/webhooks/listen-sessions/{id}',
    summary:
      'end a listen session: it collects nothing more, what waits for it is given up, and its listener is closed',
    scopes: write,
    response: DeletedWebhookSchema,
    status: 200,
    errors: ['NOT_FOUND'],
  },
  listEvents: {
    ...common,
    tag: 'events',
    operationId: 'listEvents',
    method: 'GET',
    path: '/events',
    summary: 'list recorded events, newest first, with how their deliveries fared',
    scopes: read,
    query: ListEventsQuerySchema,
    response: EventListSchema,
    status: 200,
    errors: ['NOT_FOUND'],
  },
  getEvent: {
    ...common,
    tag: 'events',
    operationId: 'getEvent',
    method: 'GET',
    path: '/events/{id}',
    summary: 'get an event with every delivery and attempt',
    scopes: read,
    response: EventDetailSchema,
    status: 200,
    errors: ['NOT_FOUND'],
  },
  resendEvent: {
    ...common,
    tag: 'events',
    operationId: 'resendEvent',
    method: 'POST',
    path: '/events/{id}/resend',
    summary: 'deliver an event again, as a new delivery with the same event id',
    scopes: write,
    body: ResendEventRequestSchema,
    bodyOptional: true,
    response: ResendResultSchema,
    status: 201,
    errors: ['NOT_FOUND', 'DUPLICATE_TRANSACTION'],
  },
  sandboxTrigger: {
    operationId: 'sandboxTrigger',
    method: 'POST',
    path: '/_sandbox/trigger',
    summary:
      'sandbox only: produce a real event of a type, creating what it needs or using the records named',
    tag: 'sandbox',
    auth: 'sandbox-admin',
    body: TriggerRequestSchema,
    response: TriggerResultSchema,
    status: 201,
    // The trigger runs the API's own operations: it answers their refusals as they are.
    errors: [
      'NOT_FOUND',
      'WALLET_EXISTS',
      'INVALID_CURRENCY',
      'INSUFFICIENT_FUNDS',
      'WALLET_NOT_ACTIVE',
      'AMOUNT_TOO_SMALL',
      'AMOUNT_TOO_LARGE',
      'INVALID_PAYMENT_METHOD',
      'CURRENCY_MISMATCH',
      'ROUNDUP_CURRENCY_LOCKED',
      'BNPL_DECLINED',
      'TRIGGER_NOT_RECORDED',
    ],
    enveloped: false,
    versioned: false,
  },
} satisfies Record<string, Endpoint>

/**
 * The listen tunnel: after `openListenSession`, the client opens a WebSocket at `socketPath` with
 * `?ticket=`. Frames are JSON text. The sandbox sends `ready` once, then a `delivery` per attempt
 * and a `ping` every `heartbeatSeconds`; the client answers `ping` with `pong` and every delivery
 * with an `ack` carrying what its local receiver answered.
 */
export const ListenDeliveryFrameSchema = z.object({
  type: z.literal('delivery'),
  deliveryId: z.string(),
  eventId: z.string(),
  event: z.string(),
  attempt: z.number().int().positive(),
  createdAt: Timestamp.describe('when the event was recorded'),
  headers: z
    .record(z.string(), z.string())
    .describe('the headers an HTTP delivery carries, signature included'),
  body: z.string().describe('base64 of the exact body bytes'),
  injected: z
    .array(z.string())
    .optional()
    .describe('what a delivery fault did to this attempt (a tampered signature): the listener says so'),
})
export type ListenDeliveryFrame = z.infer<typeof ListenDeliveryFrameSchema>

export const ListenReadyFrameSchema = z.object({
  type: z.literal('ready'),
  sessionId: z.string(),
  pending: z.number().int(),
  heartbeatSeconds: z.number().int().positive(),
})

export const ListenAckFrameSchema = z.object({
  type: z.literal('ack'),
  deliveryId: z.string(),
  forwarded: z.boolean().describe('false when the client only printed the event (no --forward-to)'),
  status: z.number().int().min(100).max(599).optional().describe('HTTP status of the local receiver'),
  durationMs: z.number().int().nonnegative().optional(),
  body: z.string().max(2048).optional().describe('start of the local receiver’s answer'),
  error: z.string().max(500).optional().describe('why no answer came (connection refused, timeout)'),
})
export type ListenAckFrame = z.infer<typeof ListenAckFrameSchema>

export const ListenClientFrameSchema = z.discriminatedUnion('type', [
  ListenAckFrameSchema,
  z.object({type: z.literal('ping')}),
  z.object({type: z.literal('pong')}),
])

/** WebSocket close codes of the listen tunnel, beyond the standard ones. */
export const LISTEN_CLOSE = {
  /** The ticket is unknown, used or older than 60 s: open the session again. */
  badTicket: 4401,
  /** A newer listener of the same session took over; this one should stop, not reconnect. */
  replaced: 4409,
  /** A frame the sandbox could not read. */
  protocol: 4400,
  /** The session was ended (DELETE): this listener should stop, not reconnect. */
  ended: 4410,
} as const
