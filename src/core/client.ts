import {randomUUID} from 'node:crypto'
import {z} from 'zod'
import {
  type AccessToken,
  type CreateUserInput,
  type CreateWalletInput,
  type EndpointId,
  type EndpointResult,
  endpoints,
  type ListWalletsQuery,
  normaliseErrorBody,
  unwrapEnvelope,
} from '../contract/index.js'
import {assertCredentialFitsEnvironment} from './environments.js'
import {type ErrorKind, PayctlError} from './errors.js'
import type {ProfileStore, ResolvedProfile} from './profiles.js'
import {TokenManager} from './token-manager.js'
import {type HttpResponse, Transport, type TransportOptions} from './transport.js'

export interface ClientOptions extends TransportOptions {
  profile: ResolvedProfile
  /** Where Variant A tokens are cached; without it every process exchanges credentials afresh. */
  store?: ProfileStore | undefined
}

export interface CallInput {
  params?: Record<string, string>
  query?: Record<string, string | number | undefined>
  body?: unknown
  /** Sent as `Idempotency-Key` on a POST; generated when absent, and reused by every retry. */
  idempotencyKey?: string | undefined
  /** Override the Bearer credential (used for refresh and revoke of a specific token). */
  bearer?: string
}

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

  readonly auth = {
    /** Exchange the profile's partner credentials for a new access token. */
    token: (body: {api_key: string; api_secret?: string; partner_id: string; scopes?: string[]}) =>
      this.call('createToken', {body}) as Promise<AccessToken>,
    revoke: (token: string) => this.call('revokeToken', {bearer: token}),
    mintJwt: (body: {scopes: string[]; expires_in?: number}) => this.call('mintJwt', {body}),
  }

  readonly users = {
    create: (input: CreateUserInput, opts: {idempotencyKey?: string} = {}) =>
      this.call('createUser', {body: input, ...opts}),
    get: (id: string) => this.call('getUser', {params: {id}}),
  }

  readonly wallets = {
    create: (input: CreateWalletInput, opts: {idempotencyKey?: string} = {}) =>
      this.call('createWallet', {body: input, ...opts}),
    get: (id: string) => this.call('getWallet', {params: {id}}),
    list: (query: ListWalletsQuery = {}) => this.call('listWallets', {query}),
  }

  readonly sandbox = {
    health: () => this.call('sandboxHealth'),
    reset: () => this.call('sandboxReset'),
  }

  /** Call one operation of the contract and return its validated result. */
  async call<K extends EndpointId>(id: K, input: CallInput = {}): Promise<EndpointResult<K>> {
    return (await this.callWithMeta(id, input)).data
  }

  async callWithMeta<K extends EndpointId>(
    id: K,
    input: CallInput = {},
  ): Promise<CallResult<EndpointResult<K>>> {
    const ep = endpoints[id]
    let path: string = ep.path
    for (const [name, value] of Object.entries(input.params ?? {})) {
      path = path.replace(`{${name}}`, encodeURIComponent(value))
    }
    const root =
      ep.auth === 'credentials' || ep.auth === 'token'
        ? (this.profile.authUrl ?? this.profile.baseUrl)
        : this.profile.baseUrl
    const prefix = 'versioned' in ep && ep.versioned === false ? '' : '/v1'
    const url = new URL(`${root}${prefix}${path}`)
    for (const [k, v] of Object.entries(input.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v))

    const headers: Record<string, string> = {}
    if (input.body !== undefined) headers['content-type'] = 'application/json'
    if (ep.method === 'POST') headers['idempotency-key'] = input.idempotencyKey ?? randomUUID()

    const bearerFor = async () => {
      if (input.bearer !== undefined) return input.bearer
      if (ep.auth === 'none' || ep.auth === 'credentials') return undefined
      if (ep.auth === 'token') {
        const token = this.tokens.cached()
        if (!token) throw notLoggedIn(this.profile)
        return token.accessToken
      }
      return this.tokens.bearer()
    }
    const send = async (bearer: string | undefined) => {
      if (bearer !== undefined) {
        assertCredentialFitsEnvironment(
          bearer,
          this.profile.environment,
          this.profile.kind,
          this.profile.baseUrl,
        )
        headers.authorization = `Bearer ${bearer}`
      }
      const body = input.body === undefined ? undefined : JSON.stringify(input.body)
      return this.#transport.send({method: ep.method, url: url.toString(), headers, body}, {retry: true})
    }

    const bearer = await bearerFor()
    let res = await send(bearer)
    // A Variant A token the service no longer accepts (expired early, revoked, sandbox reset):
    // get a fresh one from the credentials and try once more.
    if (
      res.status === 401 &&
      ep.auth === 'bearer' &&
      bearer !== undefined &&
      input.bearer === undefined &&
      this.profile.auth?.variant === 'A' &&
      ['TOKEN_EXPIRED', 'TOKEN_INVALID'].includes(errorFrom(res).code)
    ) {
      res = await send(await this.tokens.recover(bearer))
    }
    if (res.status < 200 || res.status >= 300) throw errorFrom(res)
    const data = parseSuccess(res, ep.response, id)
    return {
      data: data as EndpointResult<K>,
      requestId: headerValue(res, 'x-request-id'),
      status: res.status,
      replayed: headerValue(res, 'idempotent-replayed') === 'true',
    }
  }

  /** Send any request (for `payctl api`): same auth, retries and idempotency, no validation. */
  async raw(
    method: string,
    path: string,
    opts: {body?: string; headers?: Record<string, string>; idempotencyKey?: string} = {},
  ): Promise<HttpResponse> {
    const headers: Record<string, string> = {...opts.headers}
    const bearer = await this.tokens.bearer()
    assertCredentialFitsEnvironment(bearer, this.profile.environment, this.profile.kind, this.profile.baseUrl)
    headers.authorization = `Bearer ${bearer}`
    if (opts.body !== undefined) headers['content-type'] ??= 'application/json'
    const upper = method.toUpperCase()
    const keyed = upper !== 'GET' && upper !== 'HEAD'
    if (keyed) headers['idempotency-key'] ??= opts.idempotencyKey ?? randomUUID()
    const url = /^https?:/.test(path)
      ? path
      : `${this.profile.baseUrl}${path.startsWith('/v1') ? '' : '/v1'}${path}`
    return this.#transport.send({method: upper, url, headers, body: opts.body}, {retry: true})
  }
}

function headerValue(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name]
  return Array.isArray(v) ? v[0] : v
}

function notLoggedIn(profile: ResolvedProfile): PayctlError {
  return new PayctlError({
    kind: 'auth',
    code: 'NOT_LOGGED_IN',
    message: `no access token for profile "${profile.name}"`,
    suggestions: [`Try: payctl auth login --env ${profile.environment}`],
  })
}

function kindForStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth'
  if (status === 429) return 'rate_limited'
  return 'api'
}

/** Turn any error response, in any of the service's four shapes, into a PayctlError. */
export function errorFrom(res: HttpResponse): PayctlError {
  let body: unknown
  try {
    body = JSON.parse(res.text)
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
  let body: unknown
  try {
    body = JSON.parse(res.text)
  } catch (cause) {
    throw new PayctlError({
      kind: 'invalid_response',
      code: 'INVALID_RESPONSE',
      message: `the service answered ${operation} with a body that is not JSON (HTTP ${res.status}, ${res.text.length} bytes)`,
      status: res.status,
      requestId: headerValue(res, 'x-request-id'),
      cause,
    })
  }
  const parsed = schema.safeParse(unwrapEnvelope(body))
  if (!parsed.success) {
    throw new PayctlError({
      kind: 'invalid_response',
      code: 'INVALID_RESPONSE',
      message: `the service's answer to ${operation} does not match the contract:\n${z.prettifyError(parsed.error)}`,
      status: res.status,
      requestId: headerValue(res, 'x-request-id'),
    })
  }
  return parsed.data
}
