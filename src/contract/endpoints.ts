import type {z} from 'zod'
import {bnplEndpoints} from './bnpl.js'
import type {ErrorCode} from './errors.js'
import {
  AccessTokenSchema,
  CreateUserFromCamelSchema,
  CreateUserSchema,
  CreateWalletSchema,
  ListWalletsQuerySchema,
  MintedJwtSchema,
  MintJwtRequestSchema,
  RevokeResultSchema,
  SandboxHealthSchema,
  SandboxResetSchema,
  type ScopeA,
  type ScopeB,
  TokenRequestSchema,
  UserSchema,
  WalletListSchema,
  WalletSchema,
} from './resources.js'
import {roundupEndpoints} from './roundups.js'
import {
  AccessTokenSurface,
  notShown,
  RefreshedTokenSurface,
  UserSurface,
  WalletListSurface,
  WalletSurface,
} from './surface.js'
import {transactionEndpoints} from './transactions.js'
import {walletProductEndpoints} from './wallet-product.js'
import {webhookEndpoints} from './webhooks.js'

/** How a caller authenticates to an endpoint. */
export type EndpointAuth =
  | 'none' // no Authorization header needed
  | 'credentials' // Variant A credentials in the body (POST /auth/token)
  | 'token' // the current Variant A JWT as Bearer (refresh, revoke)
  | 'secret-key' // a Variant B secret key as Bearer (minting a JWT)
  | 'bearer' // any valid credential: Variant A JWT, Variant B key or minted JWT
  | 'sandbox-admin' // the secret key, or a Variant A JWT with the sandbox:admin scope (control routes)

/** One operation of the service: the single source for the sandbox, the client and the OpenAPI document. */
export interface Endpoint {
  operationId: string
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  /** Path below `/v1`, with `{param}` placeholders. */
  path: `/${string}`
  summary: string
  tag: string
  auth: EndpointAuth
  /** Scope required of a Variant A token and of a Variant B minted JWT. Keys carry every scope. */
  scopes?: {a: ScopeA; b: ScopeB}
  /** The request body, as the sandbox parses it before the operation runs. */
  body?: z.ZodType
  /** The operation takes a missing body as `{}` (its body schema need not say so). */
  bodyOptional?: boolean
  /**
   * The same body with camelCase field names, accepted as well (the SDK's form of create-user), and
   * read into what `body` reads. The sandbox reads a body in this form when it names a field only
   * this form has, and refuses one that also names a field only `body` has.
   */
  altBody?: z.ZodType
  /**
   * What a refusal of the body adds to its details when it names one of these fields (the allowed
   * values of a round-up multiplier).
   */
  refusalDetails?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /** The query string, as the sandbox parses it before the operation runs. */
  query?: z.ZodType
  /** What the sandbox returns: its full record (the OpenAPI document and the sandbox's tests use it). */
  response: z.ZodType
  /**
   * What the client requires of an answer: the service surface (surface.ts), for the operations the
   * interface document shows. Absent for the sandbox's own operations, where the record is the surface.
   */
  surface?: z.ZodType
  status: 200 | 201
  /** Error codes this operation can return, beyond the ones every authenticated call can. */
  errors: ErrorCode[]
  /** Whether the sandbox wraps the result in the envelope (auth records are always bare). */
  enveloped: boolean
  /** `auth`: served by the separate auth host when the profile has one (see onAuthHost). */
  host?: 'auth'
  /** False for the sandbox's own control routes, which live outside `/v1`. */
  versioned?: boolean
}

/** Errors any authenticated operation can return. */
export const COMMON_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'TOKEN_EXPIRED',
  'TOKEN_INVALID',
  'INSUFFICIENT_SCOPE',
  'invalid_api_key',
  'expired_token',
  'insufficient_permissions',
  'missing_authorization',
  'RATE_LIMIT_EXCEEDED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL_ERROR',
]

export const endpoints = {
  createToken: {
    operationId: 'createToken',
    method: 'POST',
    path: '/auth/token',
    summary: 'exchange partner credentials for an access token (Variant A)',
    tag: 'auth',
    auth: 'credentials',
    body: TokenRequestSchema,
    response: AccessTokenSchema,
    surface: AccessTokenSurface,
    status: 200,
    errors: ['INVALID_CREDENTIALS', 'RATE_LIMITED'],
    enveloped: false,
  },
  refreshToken: {
    operationId: 'refreshToken',
    method: 'POST',
    path: '/auth/refresh',
    summary: 'exchange the current access token for a new one',
    tag: 'auth',
    auth: 'token',
    response: AccessTokenSchema,
    surface: RefreshedTokenSurface,
    status: 200,
    errors: [],
    enveloped: false,
  },
  revokeToken: {
    operationId: 'revokeToken',
    method: 'POST',
    path: '/auth/revoke',
    summary: 'revoke the access token sent as Bearer',
    tag: 'auth',
    auth: 'token',
    response: RevokeResultSchema,
    surface: notShown(),
    status: 200,
    errors: [],
    enveloped: false,
  },
  revokeAllTokens: {
    operationId: 'revokeAllTokens',
    method: 'POST',
    path: '/auth/revoke-all',
    summary:
      "sandbox extension: revoke every access token and minted JWT of the caller's partner, refreshed ones included",
    tag: 'auth',
    auth: 'sandbox-admin',
    response: RevokeResultSchema,
    status: 200,
    errors: [],
    enveloped: false,
  },
  mintJwt: {
    operationId: 'mintJwt',
    method: 'POST',
    path: '/auth/jwt',
    summary: 'mint a short-lived scoped JWT from a secret API key (Variant B)',
    tag: 'auth',
    auth: 'secret-key',
    body: MintJwtRequestSchema,
    response: MintedJwtSchema,
    status: 201,
    errors: [],
    enveloped: false,
  },
  createUser: {
    operationId: 'createUser',
    method: 'POST',
    path: '/users',
    summary: 'create a user',
    tag: 'users',
    auth: 'bearer',
    scopes: {a: 'users:write', b: 'payments:create'},
    body: CreateUserSchema,
    altBody: CreateUserFromCamelSchema,
    response: UserSchema,
    surface: UserSurface,
    status: 201,
    errors: ['INSUFFICIENT_PERMISSIONS', 'DUPLICATE_TRANSACTION'],
    enveloped: true,
  },
  getUser: {
    operationId: 'getUser',
    method: 'GET',
    path: '/users/{id}',
    summary: 'get a user',
    tag: 'users',
    auth: 'bearer',
    scopes: {a: 'users:read', b: 'payments:read'},
    response: UserSchema,
    surface: UserSurface,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  createWallet: {
    operationId: 'createWallet',
    method: 'POST',
    path: '/wallets',
    summary: 'create a wallet for a user in one currency',
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    body: CreateWalletSchema,
    response: WalletSchema,
    surface: WalletSurface,
    status: 201,
    errors: [
      'INVALID_CURRENCY',
      'INVALID_USER_ID',
      'WALLET_EXISTS',
      'INVALID_API_KEY',
      'INSUFFICIENT_PERMISSIONS',
      'DUPLICATE_TRANSACTION',
    ],
    enveloped: true,
  },
  getWallet: {
    operationId: 'getWallet',
    method: 'GET',
    path: '/wallets/{id}',
    summary: 'get a wallet',
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:read', b: 'balance:read'},
    response: WalletSchema,
    surface: WalletSurface,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  listWallets: {
    operationId: 'listWallets',
    method: 'GET',
    path: '/wallets',
    summary: 'list wallets, filtered by user and currency',
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:read', b: 'balance:read'},
    query: ListWalletsQuerySchema,
    response: WalletListSchema,
    surface: WalletListSurface,
    status: 200,
    errors: ['INVALID_CURRENCY'],
    enveloped: true,
  },
  sandboxHealth: {
    operationId: 'sandboxHealth',
    method: 'GET',
    path: '/_sandbox/health',
    summary: 'sandbox only: liveness, version and settings of the running sandbox',
    tag: 'sandbox',
    auth: 'none',
    response: SandboxHealthSchema,
    status: 200,
    errors: [],
    enveloped: false,
    versioned: false,
  },
  sandboxReset: {
    operationId: 'sandboxReset',
    method: 'POST',
    path: '/_sandbox/reset',
    summary: "sandbox only: delete every record of the caller's partner, keeping its credentials",
    tag: 'sandbox',
    auth: 'sandbox-admin',
    response: SandboxResetSchema,
    status: 200,
    errors: [],
    enveloped: false,
    versioned: false,
  },
  ...transactionEndpoints,
  ...walletProductEndpoints,
  ...webhookEndpoints,
  ...roundupEndpoints,
  ...bnplEndpoints,
} satisfies Record<string, Endpoint>

export type EndpointId = keyof typeof endpoints
type SurfaceOf<E> = E extends {surface: infer S extends z.ZodType}
  ? S
  : E extends {response: infer R extends z.ZodType}
    ? R
    : never
/** What a call of the client returns: the answer as the service sent it, checked against the surface. */
export type EndpointResult<K extends EndpointId> = z.infer<SurfaceOf<(typeof endpoints)[K]>>
/** The names of the `{param}` placeholders of a path template. */
export type PathParams<P extends string> = P extends `${string}{${infer N}}${infer R}`
  ? N | PathParams<R>
  : never
/** The path parameters an operation takes (`never` for none). */
export type EndpointParams<K extends EndpointId> = PathParams<(typeof endpoints)[K]['path']>
/** The body an operation takes (`never` for one that takes none). */
export type EndpointBody<K extends EndpointId> = (typeof endpoints)[K] extends {
  body: infer S extends z.ZodType
}
  ? z.input<S>
  : never
/** The query an operation takes (`never` for one that takes none). */
export type EndpointQuery<K extends EndpointId> = (typeof endpoints)[K] extends {
  query: infer S extends z.ZodType
}
  ? z.input<S>
  : never

/** The schema the client checks an answer against. */
export function surfaceOf(endpoint: Endpoint): z.ZodType {
  return endpoint.surface ?? endpoint.response
}

/**
 * Which body shape an endpoint's errors take, apart from refused credentials (those follow the
 * credential: Variant A auth shape for a Variant A token, Variant B auth shape for a key or minted JWT):
 * - `auth-a`: the Variant A auth shape (token exchange, refresh, revoke);
 * - `bare`: the resource shape (endpoints whose success is bare: JWT minting, sandbox control);
 * - `business`: the overview shape when the sandbox serves envelopes, the resource shape otherwise.
 */
export type ErrorStyle = 'auth-a' | 'bare' | 'business'

export function errorStyleOf(endpoint: Endpoint): ErrorStyle {
  if (endpoint.auth === 'credentials' || endpoint.auth === 'token') return 'auth-a'
  return endpoint.enveloped ? 'business' : 'bare'
}

/**
 * Whether a call goes to the profile's separate auth host, when it has one. The interface's earlier
 * variant documents "auth and round-up calls" under `{auth_url}`: the token calls, and the round-up
 * calls of the common table that came with that variant (PUT /users/{id}/roundup-settings and
 * POST /transactions/process). The round-up product (`/roundupsvc/…`) is a product area of the main
 * host, like `/bnplsvc` and `/walletsvc`, and stays there.
 */
export function onAuthHost(endpoint: Endpoint): boolean {
  return endpoint.auth === 'credentials' || endpoint.auth === 'token' || endpoint.host === 'auth'
}

/**
 * Whether a refused Variant B credential answers with the endpoint's own INVALID_API_KEY and
 * INSUFFICIENT_PERMISSIONS in the business shape, instead of the Variant B auth shape: only where
 * the spec's error table of the endpoint names them (POST /wallets).
 */
export function hasOwnKeyCodes(endpoint: Endpoint): boolean {
  return endpoint.errors.includes('INVALID_API_KEY')
}

/** The auth endpoints (`/auth/…`): they issue and end credentials, and a token is never replayed. */
export function isAuthEndpoint(endpoint: Endpoint): boolean {
  return endpoint.path.startsWith('/auth/')
}

/**
 * Every change (POST, PUT, PATCH, DELETE) honours an `Idempotency-Key` header, except on the auth
 * endpoints: the client sends one on each, so that a retry after a lost answer replays it (a
 * retried DELETE answers as the first did, not 404).
 */
export function takesIdempotencyKey(endpoint: Endpoint): boolean {
  return endpoint.method !== 'GET' && !isAuthEndpoint(endpoint)
}

/** Whether a call only hands out a token (an exchange or a refresh): it changes nothing worth auditing. */
export function issuesToken(endpoint: Endpoint): boolean {
  return endpoint.operationId === 'createToken' || endpoint.operationId === 'refreshToken'
}

const pathPatterns = new Map<Endpoint, RegExp>()

/** The operation that `method` and `path` (below `/v1`, without a query) name, if the table has one. */
export function endpointAt(method: string, path: string): Endpoint | undefined {
  for (const endpoint of Object.values(endpoints) as Endpoint[]) {
    if (endpoint.method !== method) continue
    let pattern = pathPatterns.get(endpoint)
    if (pattern === undefined) {
      pattern = new RegExp(`^${endpoint.path.replace(/\{\w+\}/g, '[^/]+')}/?$`)
      pathPatterns.set(endpoint, pattern)
    }
    if (pattern.test(path)) return endpoint
  }
  return undefined
}
