import {z} from 'zod'
import {
  type Endpoint,
  type EndpointId,
  endpoints,
  IDEMPOTENCY_KEY,
  isAuthEndpoint,
  takesIdempotencyKey,
} from '../contract/index.js'
import type {CallInput, PayctlClient} from '../core/index.js'
import {answer, failure, refusal} from './results.js'
import type {Tool} from './tool.js'

/**
 * One tool per operation of the endpoint table, generated from its entry: named for its verb and
 * resource, described by its summary, its route and its errors, taking its path parameters, query
 * and body fields as one flat object, and answering what the service answered. The token endpoints
 * are not offered: the server authenticates with the profile, as every command does.
 */

/** `getUser` → `get_user`, `sendP2P` → `send_p2p`, `sandboxAdvanceClock` → `sandbox_advance_clock`. */
export function toolName(operationId: string): string {
  return operationId.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()
}

/** The route as a person types it: control routes outside `/v1`, the rest below it. */
function routeOf(endpoint: Endpoint): string {
  return `${endpoint.method} ${endpoint.versioned === false ? '' : '/v1'}${endpoint.path}`
}

function descriptionOf(endpoint: Endpoint): string {
  const lines = [`${endpoint.summary} (${routeOf(endpoint)}).`]
  if (endpoint.extension !== undefined) lines.push(`A payctl sandbox extension: ${endpoint.extension}.`)
  if (endpoint.errors.length > 0) lines.push(`Errors of its own: ${endpoint.errors.join(', ')}.`)
  return lines.join(' ')
}

/** The names of the `{param}` placeholders of a path. */
function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
}

/** The fields of an object schema (optional or not); none for anything else. */
function fieldsOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : {}
}

/** Whether an operation may be called without a body at all. */
function bodyMayBeLeftOut(endpoint: Endpoint): boolean {
  return (
    endpoint.body === undefined ||
    endpoint.bodyOptional === true ||
    endpoint.body.safeParse(undefined).success
  )
}

const IdempotencyKeyArgument = z
  .string()
  .regex(IDEMPOTENCY_KEY)
  .optional()
  .describe(
    'makes a retry safe: the same key with the same arguments replays the first answer. One is generated when left out; give the one an unknown outcome reported to repeat the call',
  )

/** Where each flat argument of an operation's tool goes: its path, its query or its body. */
interface Layout {
  params: string[]
  query: string[]
  body: string[]
}

/**
 * The flat input of an operation: its path parameters, its query's fields and its body's fields at
 * the top level, and the idempotency key of a change. Unknown arguments are refused. A field of an
 * optional body is optional here; the body as a whole is checked against its own schema when called.
 */
function flatInput(endpoint: Endpoint): {input: z.ZodObject; layout: Layout} {
  const params = pathParamsOf(endpoint.path)
  const query = fieldsOf(endpoint.query)
  const body = fieldsOf(endpoint.body)
  const optionalBody = bodyMayBeLeftOut(endpoint)
  const shape: Record<string, z.ZodType> = {}
  const place = (name: string, schema: z.ZodType) => {
    if (name in shape) throw new Error(`${endpoint.operationId}: "${name}" is in two parts of the request`)
    shape[name] = schema
  }
  for (const name of params) place(name, z.string().min(1).describe(`the {${name}} of ${endpoint.path}`))
  for (const [name, schema] of Object.entries(query)) place(name, schema)
  for (const [name, schema] of Object.entries(body))
    place(name, optionalBody && !(schema instanceof z.ZodOptional) ? schema.optional() : schema)
  if (takesIdempotencyKey(endpoint) && !('idempotencyKey' in shape))
    shape.idempotencyKey = IdempotencyKeyArgument
  return {
    input: z.strictObject(shape),
    layout: {params, query: Object.keys(query), body: Object.keys(body)},
  }
}

/** The arguments of a tool as the client's call of its operation. */
function callOf(endpoint: Endpoint, layout: Layout, args: Record<string, unknown>): CallInput {
  const pick = (names: string[]) =>
    Object.fromEntries(names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]))
  const body = pick(layout.body)
  const query = pick(layout.query)
  const key = args.idempotencyKey
  return {
    params: pick(layout.params) as Record<string, string>,
    ...(layout.query.length > 0 ? {query} : {}),
    ...(endpoint.body !== undefined && (Object.keys(body).length > 0 || !bodyMayBeLeftOut(endpoint))
      ? {body}
      : {}),
    // A body's own idempotencyKey and the header must agree: the service refuses two keys.
    ...(typeof key === 'string' ? {idempotencyKey: key} : {}),
  } as CallInput
}

/**
 * What the flat schema cannot say of a body or a query: checks across fields (`seconds` or `to`),
 * or of a body given in part. Checked before anything is sent, as the service would check it.
 */
function problemOf(endpoint: Endpoint, call: CallInput): string | undefined {
  for (const [schema, value] of [
    [endpoint.body, call.body],
    [endpoint.query, call.query],
  ] as const) {
    if (schema === undefined || value === undefined) continue
    const parsed = schema.safeParse(value)
    if (!parsed.success) return z.prettifyError(parsed.error)
  }
  return undefined
}

/** Whether an operation leaves no way back: a delete, a reset, a restore over the current state. */
function destroys(endpoint: Endpoint): boolean {
  return endpoint.method === 'DELETE' || ['sandboxReset', 'restoreSnapshot'].includes(endpoint.operationId)
}

/** The tool of one operation. */
export function endpointTool(id: EndpointId, client: PayctlClient): Tool {
  const endpoint: Endpoint = endpoints[id]
  const {input, layout} = flatInput(endpoint)
  const mutates = endpoint.method !== 'GET'
  return {
    name: toolName(endpoint.operationId),
    title: endpoint.summary,
    description: descriptionOf(endpoint),
    input,
    mutates,
    // The sandbox's own routes (reset, clock, faults, snapshots, trigger…) live outside /v1.
    localOnly: endpoint.versioned === false,
    annotations: {
      readOnlyHint: !mutates,
      destructiveHint: mutates && destroys(endpoint),
      idempotentHint: endpoint.method === 'GET' || endpoint.method === 'PUT',
    },
    async run(args) {
      const call = callOf(endpoint, layout, args)
      const problem = problemOf(endpoint, call)
      if (problem !== undefined) return refusal('VALIDATION_ERROR', problem)
      try {
        // Any operation by its id: the table decides its route, its auth and its idempotency key.
        const result = await client.callWithMeta(id, call as never)
        return answer(result.data, {
          requestId: result.requestId,
          status: result.status,
          replayed: result.replayed,
        })
      } catch (err) {
        return failure(err)
      }
    },
  }
}

/** Every operation offered as a tool: all but the token endpoints. */
export function endpointTools(client: PayctlClient): Tool[] {
  return (Object.keys(endpoints) as EndpointId[])
    .filter((id) => !isAuthEndpoint(endpoints[id]))
    .map((id) => endpointTool(id, client))
}
