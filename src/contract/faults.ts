import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {Id, pageQuery, Timestamp} from './fields.js'

/**
 * Faults on demand, a sandbox extension (docs/sandbox.md#faults): failures the sandbox injects into
 * a partner's own API requests (API faults) and into the webhook deliveries of a registration or a
 * listen session (delivery faults), so that a partner's code can be proved to survive them.
 */

/** The statuses an API fault may answer with. */
export const FAULT_STATUSES = [429, 500, 503] as const
export type FaultStatus = (typeof FAULT_STATUSES)[number]
/** Longest latency an API fault may add. */
export const MAX_FAULT_LATENCY_MS = 60_000
/** Longest a delivery fault may delay a delivery. */
export const MAX_DELIVERY_DELAY_MS = 3_600_000
/** Most deliveries `reorder` holds back to shuffle, and how long it holds them at most. */
export const MAX_REORDER = 100
export const REORDER_HOLD_MS = 2_000
/** Most attempts `failFirst` fails: every attempt a delivery gets (then it is given up). */
export const MAX_FAIL_FIRST = 8
export const MAX_FAULT_SEED = 2 ** 32 - 1
/**
 * Live faults a partner may have at once, API and delivery faults together: far more than a test
 * set-up names, few enough that listing them all is a page or two.
 */
export const FAULT_CAP = 100
/** Spent API faults (`times` used up) kept listed, the newest; they do not count towards the cap. */
export const SPENT_FAULTS_KEPT = 100

const Rate = z.number().min(0).max(1)
const Seed = z
  .number()
  .int()
  .min(0)
  .max(MAX_FAULT_SEED)
  .describe('makes the sequence of choices reproducible (default: a random seed, shown in the answer)')

export const LatencySchema = z
  .strictObject({
    minMs: z.number().int().min(0).max(MAX_FAULT_LATENCY_MS),
    maxMs: z.number().int().min(0).max(MAX_FAULT_LATENCY_MS),
  })
  .describe('latency added before the request runs: a value drawn evenly from minMs..maxMs')

export const ApiFaultRequestSchema = z
  .strictObject({
    route: z
      .string()
      .min(1)
      .max(300)
      .describe(
        'METHOD /v1/path, as the endpoint table writes paths (`POST /v1/transactions`, `GET /v1/wallets/{id}`); the method may be `*`; a literal id in place of `{id}` narrows the fault to that record',
      ),
    status: z
      .union(FAULT_STATUSES.map((s) => z.literal(s)))
      .optional()
      .describe('answer with this status instead of running the request'),
    retryAfterSeconds: z
      .number()
      .int()
      .min(0)
      .max(3600)
      .optional()
      .describe('Retry-After of a 429 or 503 (default 1)'),
    latency: LatencySchema.optional(),
    drop: z
      .enum(['before', 'after'])
      .optional()
      .describe(
        'cut the connection without an answer: before the request runs, or after its change (and its idempotent answer) is committed',
      ),
    rate: Rate.optional().describe('share of the matching requests hit, 0 to 1 (default 1)'),
    times: z.number().int().min(1).max(1_000_000).optional().describe('inject at most this many times'),
    seed: Seed.optional(),
  })
  .meta({id: 'ApiFaultRequest'})
export type ApiFaultRequest = z.infer<typeof ApiFaultRequestSchema>

/** What a delivery fault does to the deliveries of its registration or listen session. */
export const DeliveryFaultSettingsSchema = z
  .strictObject({
    duplicate: Rate.optional().describe(
      'share of deliveries sent a second time: a second delivery of the same event, same body bytes',
    ),
    reorder: z
      .number()
      .int()
      .min(2)
      .max(MAX_REORDER)
      .optional()
      .describe(
        `hold up to this many first attempts (for ${REORDER_HOLD_MS / 1000} s at most) and send them shuffled`,
      ),
    delayMs: z
      .number()
      .int()
      .min(1)
      .max(MAX_DELIVERY_DELAY_MS)
      .optional()
      .describe('send each delivery this much later'),
    failFirst: z
      .number()
      .int()
      .min(1)
      .max(MAX_FAIL_FIRST)
      .optional()
      .describe('fail the first N attempts of each event without sending them, so the retry schedule runs'),
    tamperSignature: Rate.optional().describe(
      'share of attempts sent with an x-service-signature that does not verify',
    ),
    seed: Seed.optional(),
  })
  .meta({id: 'DeliveryFaultSettings'})
export type DeliveryFaultSettings = z.infer<typeof DeliveryFaultSettingsSchema>

export const DeliveryFaultRequestSchema = DeliveryFaultSettingsSchema.extend({
  webhookId: Id.describe('the registration whose deliveries the fault hits'),
}).meta({id: 'DeliveryFaultRequest'})
export type DeliveryFaultRequest = z.infer<typeof DeliveryFaultRequestSchema>

const common = {
  id: z.string().describe('flt_…'),
  seed: z.number().int(),
  injected: z.number().int().describe('how many times the fault was injected so far'),
  createdAt: Timestamp,
}

export const ApiFaultSchema = z
  .object({
    kind: z.literal('api'),
    ...common,
    route: z.string().describe('the route pattern, as normalised'),
    endpoints: z.array(z.string()).describe('the endpoints of the table it matches (METHOD /v1/path)'),
    status: z.number().int().nullable(),
    retryAfterSeconds: z.number().int().nullable(),
    latency: LatencySchema.nullable(),
    drop: z.enum(['before', 'after']).nullable(),
    rate: z.number().describe('share of the matching requests hit'),
    times: z.number().int().nullable(),
    remaining: z.number().int().nullable().describe('injections left (null: no --times)'),
  })
  .meta({id: 'ApiFault'})
export type ApiFault = z.infer<typeof ApiFaultSchema>

export const DeliveryFaultSchema = z
  .object({
    kind: z.literal('delivery'),
    ...common,
    webhookId: z.string().nullable(),
    listenSessionId: z.string().nullable(),
    duplicate: z.number().nullable(),
    reorder: z.number().int().nullable(),
    delayMs: z.number().int().nullable(),
    failFirst: z.number().int().nullable(),
    tamperSignature: z.number().nullable(),
  })
  .meta({id: 'DeliveryFault'})
export type DeliveryFault = z.infer<typeof DeliveryFaultSchema>

export const FaultSchema = z
  .discriminatedUnion('kind', [ApiFaultSchema, DeliveryFaultSchema])
  .meta({id: 'Fault'})
export type Fault = z.infer<typeof FaultSchema>

export const ListFaultsQuerySchema = z.strictObject({...pageQuery})
export type ListFaultsQuery = z.infer<typeof ListFaultsQuerySchema>

export const FaultListSchema = z
  .object({faults: z.array(FaultSchema), hasMore: z.boolean(), nextCursor: z.string().nullable()})
  .meta({id: 'FaultList'})
export type FaultList = z.infer<typeof FaultListSchema>
export const RemovedFaultSchema = z
  .object({id: z.string(), deleted: z.literal(true)})
  .meta({id: 'RemovedFault'})
export const ClearedFaultsSchema = z
  .object({cleared: z.number().int().describe('how many faults were removed')})
  .meta({id: 'ClearedFaults'})

const control = {tag: 'sandbox', auth: 'sandbox-admin', enveloped: false, versioned: false} as const

export const faultEndpoints = {
  addApiFault: {
    ...control,
    operationId: 'addApiFault',
    method: 'POST',
    path: '/_sandbox/faults',
    summary: "sandbox only: inject a failure into the caller's own requests to a route",
    body: ApiFaultRequestSchema,
    response: ApiFaultSchema,
    status: 201,
    errors: ['FAULT_LIMIT', 'DUPLICATE_TRANSACTION'],
  },
  addDeliveryFault: {
    ...control,
    operationId: 'addDeliveryFault',
    method: 'POST',
    path: '/_sandbox/faults/deliveries',
    summary:
      "sandbox only: inject failures into a webhook registration's deliveries (replacing its delivery fault)",
    body: DeliveryFaultRequestSchema,
    response: DeliveryFaultSchema,
    status: 201,
    errors: ['NOT_FOUND', 'FAULT_LIMIT', 'DUPLICATE_TRANSACTION'],
  },
  listFaults: {
    ...control,
    operationId: 'listFaults',
    method: 'GET',
    path: '/_sandbox/faults',
    summary: "sandbox only: the caller's faults, API and delivery, oldest first, a page at a time",
    query: ListFaultsQuerySchema,
    response: FaultListSchema,
    status: 200,
    errors: [],
  },
  removeFault: {
    ...control,
    operationId: 'removeFault',
    method: 'DELETE',
    path: '/_sandbox/faults/{id}',
    summary: 'sandbox only: remove one of the caller’s faults',
    response: RemovedFaultSchema,
    status: 200,
    errors: ['NOT_FOUND'],
  },
  clearFaults: {
    ...control,
    operationId: 'clearFaults',
    method: 'DELETE',
    path: '/_sandbox/faults',
    summary: "sandbox only: remove every one of the caller's faults",
    response: ClearedFaultsSchema,
    status: 200,
    errors: [],
  },
} satisfies Record<string, Endpoint>
