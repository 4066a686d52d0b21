import type {z} from 'zod'
import type {Endpoint, PathParams} from '../contract/api/endpoint.js'
import type {EndpointId, endpoints} from '../contract/api/endpoints.js'
import type {ResponseShape} from '../contract/api/envelope.js'
import type {DueWork, SandboxClock} from './clock.js'
import type {EventLog} from './event-log.js'
import type {FaultStore} from './faults/injection.js'
import type {IdempotencyStore} from './http/idempotency.js'
import type {Cursors} from './http/pagination.js'
import type {RateLimiter} from './http/rate-limiter.js'
import type {OwnerKinds} from './money/owners.js'
import type {MoneyService} from './money/service.js'
import type {SnapshotStore} from './snapshots/store.js'
import type {Database} from './storage/database.js'
import type {Principal} from './tenancy/authenticate.js'
import type {PartnerRows} from './tenancy/partner-rows.js'
import type {PartnerDirectory} from './tenancy/partners.js'
import type {Tenants} from './tenancy/tenants.js'
import type {TokenService} from './tenancy/tokens.js'

/** How quickly failed webhook deliveries are retried: like production, or compressed for local work. */
export type RetrySchedule = 'realtime' | 'fast'
export const RETRY_SCHEDULES = ['realtime', 'fast'] as const

export interface SandboxSettings {
  responseShape: ResponseShape
  rateLimit: 'spec' | 'off'
  tokenTtlSeconds: number
  startedAt: string
  version: string
  /** How quickly failed webhook deliveries are retried (docs/webhooks.md). */
  webhookRetries: RetrySchedule
  /** The waits of webhook delivery (its retries, a reorder fault's hold) multiplied by this; 1 unless a test shortens them. */
  webhookWaitScale?: number
  /** How long "1-3 days" takes locally: ACH, wire and crypto settle after this many seconds. */
  settleAfterSeconds: number
  /** How long a client may take to send a request's headers. */
  headersTimeoutMs: number
  /** Listening on an address other than loopback: webhooks then refuse loopback and private receivers. */
  listensBeyondLoopback?: boolean
  /** The data file's path, or `:memory:`: the request log is kept beside it (or in memory). */
  dataFile?: string
  /** Serve the browser inspector at /_sandbox/ui (docs/inspector.md); on unless false. */
  ui?: boolean
}

/**
 * What the sandbox is made of, built once per running sandbox: each feature's routes and services
 * take the parts they use.
 */
export interface SandboxContext {
  database: Database
  partners: PartnerDirectory
  tokens: TokenService
  limiter: RateLimiter
  events: EventLog
  idempotency: IdempotencyStore
  /** Seals and opens the cursors of every list (http/pagination.ts). */
  cursors: Cursors
  settings: SandboxSettings
  /**
   * The wall clock in ms (startSandbox's `now`), that token lifetimes, rate-limit windows and the
   * inspector's sign-in links are read on: not a partner's clock.
   */
  now: () => number
  /** The sandbox clock that dates and settles transactions. */
  clock: SandboxClock
  /** Money movement over the ledger (docs/money.md). */
  money: MoneyService
  /** The kinds of owner the features set on transactions, and whether a refund may take what they own. */
  owners: OwnerKinds
  /** The users of each partner, and the check that a user is the caller's. */
  tenants: Tenants
  /** Every row of a partner, found from the schemas' ties (reset deletes them). */
  partnerRows: PartnerRows
  /** What falls due on the sandbox clock: the tick and each clock advance run it. */
  due: DueWork
  /** Each partner's faults on demand, API and delivery (faults/injection.ts, docs/sandbox.md#faults). */
  faults: FaultStore
  /** Named snapshots of partners and of the whole sandbox (snapshots/store.ts, docs/sandbox.md#snapshots). */
  snapshots: SnapshotStore
}

/** The context as a feature is served it: with what only the assembled server knows. */
export interface ServingContext extends SandboxContext {
  /** The operation serving an endpoint, by operation id (the webhook trigger runs others as steps). */
  operation(operationId: string): ServedRoute | undefined
  /** One line for the sandbox's log, when it keeps one. */
  log: ((line: string) => void) | undefined
}

/** One request, as an operation sees it: already authenticated and rate-limited. */
interface Request<Body, Query, Params extends string = string> {
  principal: Principal | undefined
  body: Body
  query: Query
  /** The path's parameters, by the names of its `{placeholders}`. */
  params: Record<Params, string>
  /** Remote address, for the failed-login guard. */
  ip: string
  /** Add response headers (also kept when the operation then throws). */
  setHeaders(headers: Record<string, string>): void
}

type EndpointOf<K extends EndpointId> = (typeof endpoints)[K]
/** An endpoint of the table. */
type TableEndpoint = EndpointOf<EndpointId>
/** The body an operation of `E` receives: its body schema's output (or its other form's), none without one. */
type BodyOf<E> = E extends {body: infer S extends z.ZodType}
  ? z.output<S> | (E extends {altBody: infer A extends z.ZodType} ? z.output<A> : never)
  : undefined
/** The query an operation of `E` receives: its query schema's output, none without one. */
type QueryOf<E> = E extends {query: infer S extends z.ZodType} ? z.output<S> : undefined
/** The names of the path parameters of `E`. */
type ParamsOf<E> = E extends {path: infer P extends string} ? PathParams<P> : never

/**
 * A request to endpoint `K`, its body and query parsed by the server with the endpoint's schemas
 * (http/validation.ts, parseRequest). Without `K`, a request to any endpoint.
 */
export type OperationInput<K extends EndpointId = EndpointId> = K extends EndpointId
  ? Request<BodyOf<EndpointOf<K>>, QueryOf<EndpointOf<K>>, ParamsOf<EndpointOf<K>>>
  : never

/** What a helper needs of a request whose path names the parameters `P`: the caller and them. */
export type PathInput<P extends string> = Pick<Request<unknown, unknown, P>, 'principal' | 'params'>

/** A request as it came, its body and query not yet parsed: what the server and fixture steps hand over. */
export type RawInput = Request<unknown, unknown>

/** What the sandbox answers for endpoint `E`: its full record. */
type SandboxResponse<E extends TableEndpoint> = z.output<E['response']>

/**
 * An endpoint of the contract and the operation that serves it, which gets the request parsed with
 * the endpoint's schemas and returns the endpoint's record (the server envelopes it) or throws an
 * ApiError. Operations of idempotent endpoints (POSTs outside /auth) must be synchronous, so that
 * the change and its stored response commit in one SQLite transaction.
 */
interface Route<E extends TableEndpoint> {
  endpoint: E
  run(input: Request<BodyOf<E>, QueryOf<E>, ParamsOf<E>>): SandboxResponse<E> | Promise<SandboxResponse<E>>
  /**
   * What an idempotent replay answers instead of the resource, when the first answer holds
   * something that must not be stored (a virtual card's full number): the stored response is built
   * from this, not from the resource.
   */
  forReplay?(resource: SandboxResponse<E>): unknown
}

/** A route of any endpoint of the table: the compiler checks its operation's input and answer against its endpoint. */
export type RouteSpec = {[K in EndpointId]: Route<EndpointOf<K>>}[EndpointId]

/**
 * A route of `spec.endpoint`, its operation's input typed from the endpoint's schemas (a RouteSpec
 * literal cannot be: the compiler does not tell a union's members apart by an object property).
 */
export function route<E extends TableEndpoint>(spec: Route<E>): RouteSpec {
  return spec as unknown as RouteSpec
}

/**
 * A route as the server runs it, whatever its endpoint: `run` parses the request with the endpoint's
 * schemas, then runs the operation (http/server.ts, served). A property, not a method, so that the
 * compiler refuses a RouteSpec, whose operation expects its input parsed, where a ServedRoute belongs.
 */
export interface ServedRoute {
  endpoint: Endpoint
  run: (input: RawInput) => unknown
  forReplay?: ((resource: unknown) => unknown) | undefined
}

/** The caller's partner, for routes that require authentication. */
export function callerOf(input: {principal: Principal | undefined}): Principal {
  if (input.principal === undefined) throw new Error('route requires an authenticated caller')
  return input.principal
}

/** The caller's partner id, for routes that require authentication. */
export function partnerOf(input: {principal: Principal | undefined}): string {
  return callerOf(input).partner.partnerId
}

/**
 * The operation of a route on a user's path (`/users/{id}/…`): it runs for a user of the caller's
 * partner, and any other is NOT_FOUND.
 */
export function forUserOfPath<I extends PathInput<'id'>, R>(
  tenants: Tenants,
  run: (user: {partnerId: string; userId: string}, input: I) => R,
): (input: I) => R {
  return (input) => {
    const partnerId = partnerOf(input)
    const userId = input.params.id
    tenants.requireUser(partnerId, userId)
    return run({partnerId, userId}, input)
  }
}
