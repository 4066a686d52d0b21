import {z} from 'zod'
import {EVENT_NAMES, EventEnvelopeSchema} from '../events/envelope.js'
import {MetaSchema} from '../fields.js'
import {ALL_EVENTS} from '../webhooks.js'
import {
  COMMON_ERRORS,
  type Endpoint,
  type ErrorStyle,
  errorStyleOf,
  hasOwnKeyCodes,
  IDEMPOTENCY_KEY,
  takesIdempotencyKey,
} from './endpoint.js'
import {endpoints} from './endpoints.js'
import {
  AuthErrorASchema,
  AuthErrorBSchema,
  authCodes,
  ERROR_STATUS,
  type ErrorCode,
  OverviewErrorSchema,
  ResourceErrorSchema,
} from './error-codes.js'
import {INSPECTOR_SECURITY_SCHEME, inspectorPaths} from './inspector-openapi.js'
import {SANDBOX_ADMIN_SCOPE} from './scopes.js'

type Json = Record<string, unknown>

const AUTH_A_CODES: readonly string[] = authCodes((e) => e.shape === 'AuthErrorA')
const AUTH_B_CODES: readonly string[] = authCodes((e) => e.shape === 'AuthErrorB')
const BODY_ERRORS: readonly ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']

const ref = (name: string): Json => ({$ref: `#/components/schemas/${name}`})

/** The mark of an integer that may exceed 2^53 (wei, yoctoNEAR amounts): see the document's description. */
const BIGINT: Json = {'x-bigint': true}

/** Every event selector the sandbox accepts: each event name, each `prefix.*` of one, and `*`. */
function eventSelectors(): string[] {
  const prefixes = new Set<string>()
  for (const name of EVENT_NAMES) {
    const parts = name.split('.')
    for (let i = 1; i < parts.length; i++) prefixes.add(`${parts.slice(0, i).join('.')}.*`)
  }
  return [...EVENT_NAMES, ...[...prefixes].sort(), ALL_EVENTS]
}

/** JSON Schemas of the contract, hoisted into `components.schemas` under their zod `id`. */
class SchemaComponents {
  readonly schemas: Record<string, Json> = {}

  /** JSON Schema of `schema` in OpenAPI form; named sub-schemas become component references. */
  add(schema: z.ZodType, io: 'input' | 'output'): Json {
    const json = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
      override: ({jsonSchema}) => {
        // MinorAmount is `multipleOf(1)` so that it may exceed 2^53; it is still an integer, and
        // marked so that a generated client reads it into an arbitrary-precision type.
        if (jsonSchema.type === 'number' && jsonSchema.multipleOf === 1) {
          jsonSchema.type = 'integer'
          delete jsonSchema.multipleOf
          Object.assign(jsonSchema, BIGINT)
        }
      },
    }) as Json
    delete json.$schema
    const defs = (json.$defs ?? {}) as Record<string, Json>
    delete json.$defs
    const renames = new Map<string, string>()
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite)
      if (value === null || typeof value !== 'object') return value
      const out: Json = {}
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
          const name = v.slice('#/$defs/'.length)
          out[k] = `#/components/schemas/${renames.get(name) ?? name}`
        } else {
          out[k] = rewrite(v)
        }
      }
      return out
    }
    // A name already taken by a different schema (the input form of an output one) gets a suffix.
    for (const [name, def] of Object.entries(defs)) {
      const existing = this.schemas[name]
      if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(rewrite(def))) {
        renames.set(name, `${name}${io === 'input' ? 'Input' : 'Output'}`)
      }
    }
    for (const [name, def] of Object.entries(defs))
      this.schemas[renames.get(name) ?? name] = rewrite(def) as Json
    return rewrite(json) as Json
  }

  /**
   * The schema itself rather than a reference to it, taken out of the components: a query schema
   * that has an id is spelled out as parameters, and nothing else refers to it.
   */
  inline(json: Json): Json {
    const name = typeof json.$ref === 'string' ? json.$ref.slice('#/components/schemas/'.length) : undefined
    const schema = name === undefined ? undefined : this.schemas[name]
    if (name === undefined || schema === undefined) return json
    delete this.schemas[name]
    return schema
  }

  /** Register `schema` under `name` and return a reference to it. */
  named(name: string, schema: z.ZodType): Json {
    const json = this.add(schema, 'output')
    if (json.$ref === undefined) this.schemas[name] = json
    return json.$ref === undefined ? ref(name) : json
  }
}

/** Every error code an endpoint can answer with. */
function errorCodesOf(endpoint: Endpoint): ErrorCode[] {
  const codes = new Set<ErrorCode>()
  switch (endpoint.auth) {
    case 'none':
      break
    case 'credentials':
      for (const c of ['VALIDATION_ERROR', ...BODY_ERRORS, 'INTERNAL_ERROR'] as ErrorCode[]) codes.add(c)
      break
    case 'token':
      for (const c of [
        ...authCodes((e) => e.token === true),
        'RATE_LIMIT_EXCEEDED',
        'VALIDATION_ERROR',
        ...BODY_ERRORS,
        'INTERNAL_ERROR',
      ] as ErrorCode[]) {
        codes.add(c)
      }
      break
    default:
      for (const c of COMMON_ERRORS) codes.add(c)
      if (endpoint.scopes === undefined && endpoint.auth === 'bearer') {
        codes.delete('INSUFFICIENT_SCOPE')
        codes.delete('insufficient_permissions')
      }
      if (endpoint.auth === 'secret-key') codes.delete('INSUFFICIENT_SCOPE')
  }
  if (endpoint.method === 'GET') for (const c of BODY_ERRORS) codes.delete(c)
  if (endpoint.rateLimited === false) codes.delete('RATE_LIMIT_EXCEEDED')
  if (takesIdempotencyKey(endpoint)) codes.add('DUPLICATE_TRANSACTION')
  for (const c of endpoint.errors) codes.add(c)
  if (hasOwnKeyCodes(endpoint)) {
    // The sandbox answers these two with the endpoint's own INVALID_API_KEY and INSUFFICIENT_PERMISSIONS.
    codes.delete('invalid_api_key')
    codes.delete('insufficient_permissions')
  }
  return [...codes]
}

/** The body shapes that an error `code` of an endpoint with `style` may take. */
function shapesOf(code: string, style: ErrorStyle): string[] {
  if (AUTH_B_CODES.includes(code)) return ['AuthErrorB']
  if (style === 'auth-a' || AUTH_A_CODES.includes(code)) return ['AuthErrorA']
  if (style === 'bare') return ['ResourceError']
  return ['OverviewError', 'ResourceError']
}

function oneOfRefs(names: string[]): Json {
  const [only] = names
  return names.length === 1 && only !== undefined ? ref(only) : {oneOf: names.map(ref)}
}

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description: 'identifier of this request (`req_…`); equals `meta.requestId` of an enveloped body',
    schema: {type: 'string'},
  },
  'X-RateLimit-Limit': {
    description: 'requests allowed by the tightest limit that applies',
    schema: {type: 'integer'},
  },
  'X-RateLimit-Remaining': {description: 'requests left under that limit', schema: {type: 'integer'}},
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) at which that limit is full again',
    schema: {type: 'integer'},
  },
  'Retry-After': {description: 'seconds to wait before retrying', schema: {type: 'integer', minimum: 1}},
  'Idempotent-Replayed': {
    description:
      '`true` when the response is the stored response of an earlier request with the same Idempotency-Key',
    schema: {type: 'string', enum: ['true']},
  },
}
const headerRef = (name: string): Json => ({$ref: `#/components/headers/${name}`})

function securityOf(endpoint: Endpoint): Json[] {
  switch (endpoint.auth) {
    case 'none':
    case 'credentials':
      return []
    case 'token':
      return [{accessToken: []}]
    case 'secret-key':
      return [{secretKey: []}]
    case 'sandbox-admin':
      return [{accessToken: [SANDBOX_ADMIN_SCOPE]}, {secretKey: []}]
    case 'bearer':
      return [
        {accessToken: endpoint.scopes === undefined ? [] : [endpoint.scopes.a]},
        {secretKey: []},
        {mintedJwt: endpoint.scopes === undefined ? [] : [endpoint.scopes.b]},
      ]
  }
}

function operationOf(endpoint: Endpoint, components: SchemaComponents): Json {
  const operation: Json = {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    security: securityOf(endpoint),
    responses: responsesOf(endpoint, components),
  }
  // What the interface document does not show, said as such: a client must not count on it.
  if (endpoint.extension !== undefined) {
    operation['x-sandbox-extension'] = true
    operation.description = `Sandbox extension: ${endpoint.extension}.`
  }
  const parameters = parametersOf(endpoint, components)
  if (parameters.length > 0) operation.parameters = parameters
  if (endpoint.body !== undefined) {
    operation.requestBody = {
      // A bodiless request is accepted where the schema takes "nothing" or the operation reads it as {}.
      required: !(endpoint.bodyOptional === true || endpoint.body.safeParse(undefined).success),
      content: {
        'application/json': {
          schema:
            endpoint.altBody === undefined
              ? components.add(endpoint.body, 'input')
              : {oneOf: [components.add(endpoint.body, 'input'), components.add(endpoint.altBody, 'input')]},
        },
      },
    }
  }
  return operation
}

/** The path parameters, the query's fields and the Idempotency-Key header an operation takes. */
function parametersOf(endpoint: Endpoint, components: SchemaComponents): Json[] {
  const parameters: Json[] = []
  for (const match of endpoint.path.matchAll(/\{(\w+)\}/g)) {
    parameters.push({name: match[1], in: 'path', required: true, schema: {type: 'string'}})
  }
  if (endpoint.query !== undefined) {
    const query = components.inline(components.add(endpoint.query, 'input'))
    const required = (query.required ?? []) as string[]
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      // Cursors are opaque, but always base64url: anything else is refused as not issued here.
      const spelled = name === 'cursor' ? {...schema, pattern: '^[A-Za-z0-9_-]+$'} : schema
      parameters.push({name, in: 'query', required: required.includes(name), schema: spelled})
    }
  }
  if (takesIdempotencyKey(endpoint)) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'makes a retry safe: the same key with the same request replays the first response; with a different request it is refused with DUPLICATE_TRANSACTION',
      schema: {type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source},
    })
  }
  return parameters
}

/** The success answer in both response shapes, and each error status with the shapes its codes take. */
function responsesOf(endpoint: Endpoint, components: SchemaComponents): Json {
  const resource = components.add(endpoint.response, 'output')
  const success = endpoint.enveloped
    ? {
        oneOf: [
          {
            type: 'object',
            description: 'envelope shape (sandbox --response-shape envelope, the default)',
            properties: {success: {const: true}, data: resource, meta: ref('Meta')},
            required: ['success', 'data', 'meta'],
            additionalProperties: false,
          },
          {...resource, description: 'direct shape (sandbox --response-shape direct): the bare resource'},
        ],
      }
    : resource
  const limited = endpoint.auth !== 'none'
  const responses: Json = {
    [String(endpoint.status)]: {
      description: endpoint.status === 201 ? 'created' : 'success',
      headers: {
        'X-Request-Id': headerRef('X-Request-Id'),
        ...(limited
          ? {
              'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
              'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
              'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
            }
          : {}),
        ...(takesIdempotencyKey(endpoint) ? {'Idempotent-Replayed': headerRef('Idempotent-Replayed')} : {}),
      },
      content: {'application/json': {schema: success}},
    },
  }
  const style = errorStyleOf(endpoint)
  const byStatus = new Map<number, string[]>()
  for (const code of errorCodesOf(endpoint)) {
    const status = ERROR_STATUS[code]
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const shapes = [...new Set(codes.flatMap((c) => shapesOf(c, style)))]
    responses[String(status)] = {
      description: codes.join(', '),
      'x-error-codes': codes,
      headers: {
        'X-Request-Id': headerRef('X-Request-Id'),
        ...(status === 429 ? {'Retry-After': headerRef('Retry-After')} : {}),
      },
      content: {'application/json': {schema: oneOfRefs(shapes)}},
    }
  }
  return responses
}

/**
 * What the sandbox enforces beyond the zod schemas (in code, with its own messages), said in the
 * document too, so that a client generated from it sends nothing the sandbox refuses.
 */
function tighten(schemas: Record<string, Json>): void {
  const token = schemas.TokenRequest
  if (token !== undefined) {
    // Optional in the schema only so that the key-only quickstart form gets its own refusal.
    token.required = [...new Set([...((token.required ?? []) as string[]), 'api_secret'])]
  }
  const selectors = {type: 'string', enum: eventSelectors()}
  for (const name of ['WebhookRegistrationRequest', 'OpenListenSessionRequest']) {
    const events = (schemas[name]?.properties as Record<string, Json> | undefined)?.events
    if (events !== undefined) events.items = selectors
  }
}

/** The `webhooks` section: what the sandbox POSTs to a registered URL, one entry per event name. */
function webhooksOf(components: SchemaComponents): Record<string, Json> {
  const envelope = components.add(EventEnvelopeSchema, 'output')
  const out: Record<string, Json> = {}
  for (const name of EVENT_NAMES) {
    out[name] = {
      post: {
        operationId: `on_${name.replace(/\W/g, '_')}`,
        summary: `the ${name} event, delivered to each webhook registered for it`,
        parameters: [
          {
            name: 'x-service-signature',
            in: 'header',
            required: true,
            description:
              '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the webhook secret>`; during a secret rotation a second v1 (docs/webhooks.md). Reject a delivery that does not verify with 401',
            schema: {type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$'},
          },
        ],
        requestBody: {required: true, content: {'application/json': {schema: envelope}}},
        responses: {
          '200': {description: 'received; any 2xx counts as delivered'},
          '401': {description: 'the signature did not verify'},
        },
      },
    }
  }
  return out
}

/** Where a sandbox started with the defaults answers: the document's server unless told another. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:4010'

/**
 * The OpenAPI 3.1 document of the service as the sandbox serves it, generated from `endpoints`:
 * both success shapes of enveloped operations, and each operation's error responses by status.
 */
// Long: the document's parts assembled in the order the document reads, each a few lines.
export function buildOpenApiDocument(serverUrl: string = DEFAULT_SERVER_URL): Record<string, unknown> {
  const components = new SchemaComponents()
  components.named('Meta', MetaSchema)
  components.named('OverviewError', OverviewErrorSchema)
  components.named('AuthErrorA', AuthErrorASchema)
  components.named('AuthErrorB', AuthErrorBSchema)
  components.named('ResourceError', ResourceErrorSchema)

  const paths: Record<string, Record<string, Json>> = {}
  for (const endpoint of Object.values(endpoints) as Endpoint[]) {
    const path = endpoint.versioned === false ? endpoint.path : `/v1${endpoint.path}`
    paths[path] ??= {}
    paths[path][endpoint.method.toLowerCase()] = operationOf(endpoint, components)
  }
  Object.assign(paths, inspectorPaths())
  const webhooks = webhooksOf(components)
  tighten(components.schemas)

  return {
    openapi: '3.1.1',
    info: {
      title: 'Payments, wallets and round-ups service (payctl sandbox)',
      version: '1.0.0',
      license: {name: 'MIT', identifier: 'MIT'},
      description:
        "Generated by payctl from its contract. Enveloped operations answer in one of two shapes, chosen when the sandbox starts (--response-shape envelope|direct); errors use the four documented error shapes. Integers marked `x-bigint: true` (amounts in the smallest unit) may exceed 2^53 and 2^64 (wei, yoctoNEAR): read them into an arbitrary-precision integer, never a double. A method a path does not have answers 405 METHOD_NOT_ALLOWED with an Allow header (components.responses.MethodNotAllowed). Operations marked `x-sandbox-extension: true`, and query parameters described as a sandbox extension, are the sandbox's own: the platform's interface shows nothing of them, so a client must expect a service without them.",
    },
    servers: [{url: serverUrl, description: 'local sandbox (payctl sandbox start)'}],
    tags: [
      {name: 'auth', description: 'tokens: Variant A exchange, refresh and revoke; Variant B JWT minting'},
      {name: 'users', description: 'users of a partner'},
      {name: 'wallets', description: 'one wallet per user and currency'},
      {name: 'sandbox', description: 'sandbox-only control routes, outside /v1'},
      {
        name: 'inspector',
        description:
          'sandbox extension: the browser inspector at /_sandbox/ui, for a signed-in browser, not a client',
      },
    ],
    paths,
    webhooks,
    components: {
      schemas: components.schemas,
      headers: HEADERS,
      responses: {
        MethodNotAllowed: {
          description:
            'METHOD_NOT_ALLOWED: the path exists, the method does not; the Allow header lists the methods it has. Any method on an unknown path is 404 NOT_FOUND',
          headers: {
            Allow: {description: 'the methods of the path, comma-separated', schema: {type: 'string'}},
            'X-Request-Id': headerRef('X-Request-Id'),
          },
          content: {'application/json': {schema: oneOfRefs(['OverviewError', 'ResourceError'])}},
        },
      },
      securitySchemes: {
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Variant A: access token from POST /v1/auth/token; the listed scopes are required',
        },
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Variant B: secret API key (test_…) sent as is; carries every permission',
        },
        inspectorSession: INSPECTOR_SECURITY_SCHEME,
        mintedJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Variant B: short-lived JWT from POST /v1/auth/jwt; the listed scopes are required',
        },
      },
    },
  }
}
