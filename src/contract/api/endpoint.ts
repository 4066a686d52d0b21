import type {z} from 'zod'
import {authCodes, type ErrorCode} from './error-codes.js'
import type {ScopeA, ScopeB} from './scopes.js'

/**
 * What one endpoint is, and what follows from one alone. Every feature file describes its
 * endpoints with this type and endpoints.ts assembles them, so it lives apart from both.
 */

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
  /**
   * False where a call does not count against the partner's rate limits: reading the sandbox's
   * request log, which `sandbox logs --follow` polls, must not spend what it watches.
   */
  rateLimited?: false
  /**
   * False where a call takes no idempotency key: doing it twice does what doing it once does (a
   * snapshot's save or restore), and the sandbox runs it outside the transaction a key would open.
   */
  idempotent?: false
  /**
   * A sandbox extension: an operation the interface document shows nothing of, and why the sandbox
   * serves it. The OpenAPI document marks it (`x-sandbox-extension`), and the client tells a
   * service without it in one line (NOT_OFFERED), not as a failed call.
   */
  extension?: string
  /**
   * The most bytes its body may have, where that is more than every other request's 1 MiB: a
   * customer's story with its whole history.
   */
  bodyLimit?: number
}

/** Errors any authenticated operation can return. */
export const COMMON_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  ...authCodes((e) => e.everyCall),
  'RATE_LIMIT_EXCEEDED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL_ERROR',
]

/** The names of the `{param}` placeholders of a path template. */
export type PathParams<P extends string> = P extends `${string}{${infer N}}${infer R}`
  ? N | PathParams<R>
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
 * endpoints and those marked `idempotent: false`: the client sends one on each, so that a retry after a lost answer replays it (a
 * retried DELETE answers as the first did, not 404).
 */
export function takesIdempotencyKey(endpoint: Endpoint): boolean {
  return endpoint.method !== 'GET' && !isAuthEndpoint(endpoint) && endpoint.idempotent !== false
}

/**
 * What an idempotency key may be, in the `Idempotency-Key` header or a body's `idempotencyKey`: 1
 * to 255 printable ASCII characters (a header carries nothing else).
 */
export const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/

/** Whether a call only hands out a token (an exchange or a refresh): it changes nothing worth auditing. */
export function issuesToken(endpoint: Endpoint): boolean {
  return endpoint.operationId === 'createToken' || endpoint.operationId === 'refreshToken'
}
