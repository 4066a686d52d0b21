import type {z} from 'zod'
import type {Endpoint, EndpointId, endpoints} from '../contract/endpoints.js'
import type {ResponseShape} from '../contract/envelope.js'
import type {Principal} from './auth/authenticate.js'
import type {PartnerDirectory} from './auth/partners.js'
import type {TokenService} from './auth/tokens.js'
import type {SandboxClock} from './clock.js'
import type {Database} from './database.js'
import type {EventLog} from './events.js'
import type {IdempotencyStore} from './idempotency.js'
import type {RateLimiter} from './rate-limiter.js'
import type {MoneyService} from './transactions/service.js'
import type {RetrySchedule} from './webhooks/schedule.js'

export interface SandboxSettings {
  responseShape: ResponseShape
  rateLimit: 'spec' | 'off'
  tokenTtlSeconds: number
  startedAt: string
  version: string
  /** How quickly failed webhook deliveries are retried (docs/webhooks.md). */
  webhookRetries: RetrySchedule
  /** How long "1-3 days" takes locally: ACH, wire and crypto settle after this many seconds. */
  settleAfterSeconds: number
  /** Listening on an address other than loopback: webhooks then refuse loopback and private receivers. */
  listensBeyondLoopback?: boolean
}

/** Everything a route needs, built once per running sandbox. */
export interface SandboxContext {
  database: Database
  partners: PartnerDirectory
  tokens: TokenService
  limiter: RateLimiter
  events: EventLog
  idempotency: IdempotencyStore
  settings: SandboxSettings
  /** The sandbox clock that dates and settles transactions. */
  clock: SandboxClock
  /** Money movement over the ledger (docs/money.md). */
  money: MoneyService
}

/** One request, as an operation sees it: already authenticated and rate-limited. */
export interface OperationInput {
  principal: Principal | undefined
  body: unknown
  query: unknown
  params: Record<string, string>
  /** Remote address, for the failed-login guard. */
  ip: string
  /** Add response headers (also kept when the operation then throws). */
  setHeaders(headers: Record<string, string>): void
}

/** What the sandbox answers for endpoint `K`: its full record. */
type SandboxResponse<K extends EndpointId> = z.output<(typeof endpoints)[K]['response']>

/**
 * An endpoint of the contract and the operation that serves it, which returns the endpoint's
 * record (the server envelopes it) or throws an ApiError. Operations of idempotent endpoints
 * (POSTs outside /auth) must be synchronous, so that the change and its stored response commit in
 * one SQLite transaction.
 */
export type RouteSpec = {
  [K in EndpointId]: {
    endpoint: (typeof endpoints)[K]
    run(input: OperationInput): SandboxResponse<K> | Promise<SandboxResponse<K>>
    /**
     * What an idempotent replay answers instead of the resource, when the first answer holds
     * something that must not be stored (a virtual card's full number): the stored response is built
     * from this, not from the resource.
     */
    forReplay?(resource: SandboxResponse<K>): unknown
  }
}[EndpointId]

/** A route as the server runs it, whatever its endpoint. */
export interface ServedRoute {
  endpoint: Endpoint
  run(input: OperationInput): unknown
  forReplay?(resource: unknown): unknown
}

/** The caller's partner, for routes that require authentication. */
export function callerOf(input: OperationInput): Principal {
  if (input.principal === undefined) throw new Error('route requires an authenticated caller')
  return input.principal
}
