import {randomUUID} from 'node:crypto'
import {z} from 'zod'
import {
  authCodes,
  type EndpointBody,
  type EndpointId,
  type EndpointParams,
  type EndpointQuery,
  type EndpointResult,
  endpointAt,
  endpoints,
  isAuthEndpoint,
  issuesToken,
  normaliseErrorBody,
  onAuthHost,
  surfaceOf,
  takesIdempotencyKey,
  unwrapEnvelope,
} from '../contract/index.js'
import {assertCredentialFitsEnvironment} from './environments.js'
import {type ErrorKind, PayctlError} from './errors.js'
import {isExactWithoutReviver, parseExact, stringifyExact} from './exact-json.js'
import {operationUrl} from './operation-url.js'
import type {ProfileStore, ResolvedProfile} from './profiles.js'
import {notLoggedIn, TokenManager} from './token-manager.js'
import {type HttpResponse, Transport, type TransportOptions} from './transport.js'

/** The refusals of a Variant A access token that a new token mends. */
const TOKEN_RENEWED_BY: ReadonlySet<string> = new Set(authCodes((e) => e.token === true))

export interface ClientOptions extends TransportOptions {
  profile: ResolvedProfile
  /** Where Variant A tokens are cached; without it every process exchanges credentials afresh. */
  store?: ProfileStore | undefined
}

/**
 * A call of operation `K`: its path parameters, body and query as the contract types them, amounts
 * possibly exact. `params` is required when the path has placeholders; `body` when the operation
 * requires one, as the OpenAPI document says (its schema refuses a missing body and the entry has
 * no `bodyOptional`). Either is refused for an operation that takes none.
 */
export type CallInput<K extends EndpointId = EndpointId> = CallParams<K> &
  CallBody<K> & {
    query?: EndpointQuery<K>
    /** Sent as `Idempotency-Key` on a change (takesIdempotencyKey); generated when absent, reused by every retry. */
    idempotencyKey?: string | undefined
    /** Override the Bearer credential (used for refresh and revoke of a specific token). */
    bearer?: string
  }

type CallParams<K extends EndpointId> = [EndpointParams<K>] extends [never]
  ? {params?: never}
  : {params: Record<EndpointParams<K>, string>}

type CallBody<K extends EndpointId> = [EndpointBody<K>] extends [never]
  ? {body?: never}
  : (typeof endpoints)[K] extends {bodyOptional: true}
    ? {body?: Exact<EndpointBody<K>>}
    : undefined extends EndpointBody<K>
      ? {body?: Exact<EndpointBody<K>>}
      : {body: Exact<EndpointBody<K>>}

/** The arguments after the operation id: the input may be left out only when nothing in it is required. */
export type CallArgs<K extends EndpointId> =
  Record<never, never> extends CallInput<K> ? [input?: CallInput<K>] : [input: CallInput<K>]

/** What the implementation reads of any operation's input. */
interface AnyCallInput {
  params?: Record<string, string>
  query?: Record<string, unknown>
  body?: unknown
  idempotencyKey?: string | undefined
  bearer?: string
}

/** A mutation as the audit log keeps it: never a body, never a credential. */
export interface MutationRecord {
  method: string
  path: string
  idempotencyKey: string | undefined
  requestId: string | undefined
  /** undefined when no answer came. */
  status: number | undefined
}

/** Input with its amounts widened to bigint, for amounts beyond 2^53 (sent as exact digits). */
export type Exact<T> = {[K in keyof T]: number extends T[K] ? T[K] | bigint : T[K]}

/** A call's result together with what a front end may want to show about it. */
export interface CallResult<T> {
  data: T
  requestId: string | undefined
  status: number
  replayed: boolean
}

/** The payctl API client: typed calls to every operation of the contract, with auth, retries and validation. */
export class PayctlClient {
  readonly profile: ResolvedProfile
  readonly tokens: TokenManager
  /** The mutations this client sent (the first 20, for the audit log) and how many in all. */
  readonly mutations: {sent: number; first: MutationRecord[]} = {sent: 0, first: []}
  readonly #transport: Transport

  constructor(opts: ClientOptions) {
    const {profile, store, ...transport} = opts
    this.profile = profile
    this.#transport = new Transport(transport)
    this.tokens = new TokenManager(profile, store, {
      exchange: (body) => this.call('createToken', {body}),
      refresh: (token) => this.call('refreshToken', {bearer: token}),
    })
  }

  /** Call one operation of the contract and return its validated result. */
  async call<K extends EndpointId>(id: K, ...args: CallArgs<K>): Promise<EndpointResult<K>> {
    return (await this.callWithMeta(id, ...args)).data
  }

  /** Call one operation and return its validated result with its request id, status and replay flag. */
  async callWithMeta<K extends EndpointId>(
    id: K,
    ...args: CallArgs<K>
  ): Promise<CallResult<EndpointResult<K>>> {
    const ep = endpoints[id]
    const input = (args[0] ?? {}) as AnyCallInput
    const root = onAuthHost(ep) ? (this.profile.authUrl ?? this.profile.baseUrl) : this.profile.baseUrl
    const url = operationUrl(root, ep, input.params ?? {})
    for (const [k, v] of Object.entries(input.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v))

    const headers: Record<string, string> = {}
    if (input.body !== undefined) headers['content-type'] = 'application/json'
    // Every mutation carries a key, so that retrying it (below, in the transport) is safe; the auth
    // endpoints take none: a token is never replayed.
    if (takesIdempotencyKey(ep)) headers['idempotency-key'] = input.idempotencyKey ?? randomUUID()

    let bearer: string | undefined
    if (input.bearer !== undefined) bearer = input.bearer
    else if (ep.auth === 'token') {
      bearer = this.tokens.cached()?.accessToken
      if (bearer === undefined) throw notLoggedIn(this.profile, 'access token')
    } else if (ep.auth === 'bearer' || ep.auth === 'secret-key' || ep.auth === 'sandbox-admin')
      bearer = await this.tokens.bearer()
    const body = input.body === undefined ? undefined : stringifyExact(input.body)
    const resourceKey = headers['idempotency-key']
    const res = await this.#send(ep.method, url.toString(), headers, body, bearer, {
      recover: (ep.auth === 'bearer' || ep.auth === 'sandbox-admin') && input.bearer === undefined,
      audited: !issuesToken(ep),
    }).catch((err: unknown) => {
      throw withIdempotencyKey(err, resourceKey)
    })
    if (res.status < 200 || res.status >= 300) {
      const error = errorFrom(res)
      if ('extension' in ep && notOffered(error)) throw notOfferedError(ep, error)
      throw res.status >= 500 ? withIdempotencyKey(error, resourceKey) : error
    }
    const data = parseSuccess(res, surfaceOf(ep), id)
    return {
      data: data as EndpointResult<K>,
      requestId: headerValue(res, 'x-request-id'),
      status: res.status,
      replayed: headerValue(res, 'idempotent-replayed') === 'true',
    }
  }

  /**
   * Send any request to the service (for `payctl api`), with the same auth, retries and
   * idempotency as every call, and no validation. `path` is below the base URL; `/v1` is added
   * unless it is there or the path is a sandbox control route.
   */
  async raw(
    method: string,
    path: string,
    opts: {
      body?: string | undefined
      headers?: Record<string, string>
      idempotencyKey?: string | undefined
    } = {},
  ): Promise<HttpResponse> {
    if (!path.startsWith('/')) {
      throw new PayctlError({
        kind: 'usage',
        code: 'INVALID_PATH',
        message: `the path must start with / and is relative to ${this.profile.baseUrl} (got "${path}")`,
      })
    }
    const upper = method.toUpperCase()
    const headers = Object.fromEntries(
      Object.entries(opts.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    )
    if (opts.body !== undefined) headers['content-type'] ??= 'application/json'
    const versioned =
      path.startsWith('/v1/') || path === '/v1' || path.startsWith('/_sandbox') ? path : `/v1${path}`
    const ep = endpointAt(upper, versioned.replace(/^\/v1(?=\/)/, '').split('?', 1)[0]!)
    if (upper !== 'GET' && upper !== 'HEAD' && !(ep && isAuthEndpoint(ep)))
      headers['idempotency-key'] ??= opts.idempotencyKey ?? randomUUID()
    const bearer = await this.tokens.bearer()
    return this.#send(upper, `${this.profile.baseUrl}${versioned}`, headers, opts.body, bearer, {
      recover: true,
      audited: !(ep && issuesToken(ep)),
    })
  }

  /**
   * Send with the Bearer credential, refusing credentials meant for another kind of environment.
   * With `recover`, a Variant A token the service no longer accepts (expired early, revoked, a
   * sandbox reset) is replaced from the credentials and the request tried once more.
   */
  #recordMutation(
    method: string,
    url: string,
    headers: Record<string, string>,
    res: HttpResponse | undefined,
  ) {
    if (method === 'GET' || method === 'HEAD') return
    this.mutations.sent++
    if (this.mutations.first.length >= 20) return
    this.mutations.first.push({
      method,
      path: new URL(url).pathname,
      idempotencyKey: headers['idempotency-key'],
      requestId: res ? headerValue(res, 'x-request-id') : undefined,
      status: res?.status,
    })
  }

  async #send(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    bearer: string | undefined,
    {recover, audited}: {recover: boolean; audited: boolean},
  ): Promise<HttpResponse> {
    const attempt = (credential: string | undefined) => {
      if (credential !== undefined) {
        assertCredentialFitsEnvironment(
          credential,
          this.profile.environment,
          this.profile.kind,
          this.profile.baseUrl,
        )
        headers.authorization = `Bearer ${credential}`
      }
      return this.#transport.send({method, url, headers, body}, {retry: true})
    }
    const res = await attempt(bearer).catch((err: unknown) => {
      if (audited) this.#recordMutation(method, url, headers, undefined)
      throw err
    })
    if (audited) this.#recordMutation(method, url, headers, res)
    if (
      recover &&
      res.status === 401 &&
      bearer !== undefined &&
      this.profile.auth?.variant === 'A' &&
      TOKEN_RENEWED_BY.has(errorFrom(res).code)
    ) {
      return attempt(await this.tokens.recover(bearer))
    }
    return res
  }
}

/**
 * When a mutation's outcome is unknown (no answer, or a server error), give the user its
 * idempotency key: repeating the command with it cannot create a second resource.
 */
function withIdempotencyKey(err: unknown, key: string | undefined): unknown {
  if (key === undefined || !(err instanceof PayctlError)) return err
  if (err.kind !== 'network' && (err.status ?? 0) < 500) return err
  // Every attempt was refused before connecting: nothing was applied, nothing to repeat safely.
  if (err.kind === 'network' && err.details?.sent === false) return err
  return new PayctlError({
    kind: err.kind,
    code: err.code,
    message: `${err.message}; it may or may not have been applied`,
    status: err.status,
    details: {...err.details, idempotencyKey: key},
    requestId: err.requestId,
    suggestions: [`Repeat the same command with --idempotency-key ${key}: it cannot be applied twice.`],
    cause: err,
  })
}

function headerValue(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name]
  return Array.isArray(v) ? v[0] : v
}

function kindForStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth'
  if (status === 429) return 'rate_limited'
  return 'api'
}

/** Turn any error response, in any of the service's four shapes, into a PayctlError. */
/**
 * Whether an error says the service has no such operation, rather than that the call failed: an
 * unknown path (404 naming no resource of the request, or the route itself), a method the path
 * lacks (405), or one the service does not implement (501).
 */
export function notOffered(error: PayctlError): boolean {
  if (error.status === 405 || error.status === 501) return true
  const resource = error.details?.resource
  return error.status === 404 && (resource === undefined || resource === 'route')
}

/**
 * A sandbox extension a service does not offer, said in one line: what is missing and why. It is
 * no failure of the service's: it never showed the operation.
 */
function notOfferedError(
  ep: {method: string; path: string; summary: string; extension?: string},
  cause: PayctlError,
): PayctlError {
  const what = ep.summary.replace(/^sandbox extension: /, '')
  return new PayctlError({
    kind: 'api',
    code: 'NOT_OFFERED',
    message: `this service does not offer ${ep.method} /v1${ep.path} (${what}): it answered ${cause.status}, and the platform's interface shows no such operation; it is a payctl sandbox extension`,
    status: cause.status,
    cause,
  })
}

export function errorFrom(res: HttpResponse): PayctlError {
  let body: unknown
  try {
    // Exact: details such as INSUFFICIENT_FUNDS's `available` may be beyond 2^53.
    body = parseExact(res.text)
  } catch {
    body = undefined
  }
  const normalised = normaliseErrorBody(body)
  const requestId = normalised?.requestId ?? headerValue(res, 'x-request-id')
  if (normalised) {
    return new PayctlError({
      kind: kindForStatus(res.status),
      code: normalised.code,
      message: normalised.message,
      status: res.status,
      details: normalised.details,
      requestId,
    })
  }
  const snippet = res.text.length > 200 ? `${res.text.slice(0, 200)}…` : res.text
  return new PayctlError({
    kind: kindForStatus(res.status),
    code: `HTTP_${res.status}`,
    message: `the service answered HTTP ${res.status}${snippet ? `: ${snippet}` : ' with no body'}`,
    status: res.status,
    requestId,
  })
}

function parseSuccess(res: HttpResponse, schema: z.ZodType, operation: string): unknown {
  const requestId = headerValue(res, 'x-request-id')
  const invalid = (message: string, cause?: unknown) =>
    new PayctlError({
      kind: 'invalid_response',
      code: 'INVALID_RESPONSE',
      message,
      status: res.status,
      requestId,
      cause,
    })
  // An empty 2xx (a 204, say) is an empty record: enough where the interface shows no answer.
  if (res.text.trim() === '') {
    if (schema.safeParse({}).success) return {}
    throw invalid(`the service answered ${operation} with an empty body (HTTP ${res.status})`)
  }
  let body: unknown
  try {
    body = JSON.parse(res.text)
  } catch (cause) {
    throw invalid(
      `the service answered ${operation} with a body that is not JSON (HTTP ${res.status}, ${res.text.length} bytes)`,
      cause,
    )
  }
  // Validate the plain parse (where every number is a number), but hand back the exact one, in
  // which amounts beyond 2^53 are bigint. Mostly they are the same: then parse once. Either way the
  // answer is returned as the service sent it: fields the surface does not name are kept.
  const plain = unwrapEnvelope(body)
  const parsed = schema.safeParse(plain)
  if (!parsed.success) {
    throw invalid(
      `the service's answer to ${operation} does not match the interface:\n${z.prettifyError(parsed.error)}`,
    )
  }
  return isExactWithoutReviver(res.text) ? plain : unwrapEnvelope(parseExact(res.text))
}
