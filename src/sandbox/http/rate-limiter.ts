import {ApiError} from './api-error.js'

/** The spec's sandbox limits (see the Limits table) and the sandbox's failed-login guard. */
export const RATE_LIMITS = {
  perMinute: 100,
  perDay: 10_000,
  walletPerMinute: 100,
  walletCreationsPerDay: 1_000,
  failedAuthPerMinute: 10,
  failedBearerPerMinute: 30,
} as const

export interface LimitState {
  limit: number
  remaining: number
  /** Unix time, in seconds, at which the limit is fully replenished. */
  reset: number
}

/** A token bucket: `capacity` tokens, refilled continuously at `capacity` per `periodMs`. */
export class TokenBucket {
  private tokens: number
  private updatedAt: number
  private readonly perMs: number

  constructor(
    readonly capacity: number,
    periodMs: number,
    now: number,
  ) {
    this.tokens = capacity
    this.updatedAt = now
    this.perMs = capacity / periodMs
  }

  private refill(now: number): void {
    if (now > this.updatedAt) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.updatedAt) * this.perMs)
      this.updatedAt = now
    }
  }

  canTake(now: number): boolean {
    this.refill(now)
    return this.tokens >= 1
  }

  take(now: number): void {
    this.refill(now)
    this.tokens -= 1
  }

  isFull(now: number): boolean {
    this.refill(now)
    return this.tokens >= this.capacity
  }

  /** Whole seconds until one token is available again (at least 1, for a Retry-After header). */
  retryAfterSeconds(now: number): number {
    this.refill(now)
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perMs / 1000))
  }

  state(now: number): LimitState {
    this.refill(now)
    const msToFull = (this.capacity - this.tokens) / this.perMs
    return {
      limit: this.capacity,
      remaining: Math.max(0, Math.floor(this.tokens)),
      reset: Math.ceil((now + msToFull) / 1000),
    }
  }
}

/** A counter that starts again at every UTC midnight. */
export class DailyCounter {
  private day = ''
  private count = 0

  constructor(readonly limit: number) {}

  private roll(now: number): void {
    const day = new Date(now).toISOString().slice(0, 10)
    if (day !== this.day) {
      this.day = day
      this.count = 0
    }
  }

  canAdd(now: number): boolean {
    this.roll(now)
    return this.count < this.limit
  }

  add(now: number): void {
    this.roll(now)
    this.count++
  }

  state(now: number): LimitState {
    this.roll(now)
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - this.count),
      reset: nextUtcMidnight(now) / 1000,
    }
  }

  retryAfterSeconds(now: number): number {
    return Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000))
  }
}

function nextUtcMidnight(now: number): number {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
}

const MINUTE = 60_000

interface PartnerLimits {
  minute: TokenBucket
  day: DailyCounter
  walletMinute: TokenBucket
  walletCreations: DailyCounter
}

function headersOf(state: LimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.reset),
  }
}

function tooMany(message: string, retryAfter: number, state: LimitState, details: Record<string, unknown>) {
  return new ApiError('RATE_LIMIT_EXCEEDED', message, details, {
    headers: {...headersOf(state), 'retry-after': String(retryAfter)},
  })
}

/**
 * The sandbox's rate limits, kept in memory (a restart starts every counter afresh). With
 * `enabled` false every check passes and no rate-limit headers are sent.
 */
export class RateLimiter {
  private readonly partners = new Map<string, PartnerLimits>()
  private readonly failedAuth = new Map<string, TokenBucket>()

  /** `now`: the wall clock the windows are read on (ms since the epoch). */
  constructor(
    readonly enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** Let go of a deleted partner's budgets. */
  forget(partnerId: string): void {
    this.partners.delete(partnerId)
  }

  private limitsOf(partnerId: string, now: number): PartnerLimits {
    let limits = this.partners.get(partnerId)
    if (limits === undefined) {
      limits = {
        minute: new TokenBucket(RATE_LIMITS.perMinute, MINUTE, now),
        day: new DailyCounter(RATE_LIMITS.perDay),
        walletMinute: new TokenBucket(RATE_LIMITS.walletPerMinute, MINUTE, now),
        walletCreations: new DailyCounter(RATE_LIMITS.walletCreationsPerDay),
      }
      this.partners.set(partnerId, limits)
    }
    return limits
  }

  /**
   * Count one authenticated request of `partnerId`. Returns the X-RateLimit-* headers of the
   * tightest limit that applies; throws RATE_LIMIT_EXCEEDED (with Retry-After) when one is spent.
   */
  admit(partnerId: string, walletRoute: boolean, now = this.now()): Record<string, string> {
    if (!this.enabled) return {}
    const l = this.limitsOf(partnerId, now)
    if (!l.day.canAdd(now)) {
      throw tooMany(
        `Daily request limit of ${RATE_LIMITS.perDay} reached; it resets at 00:00 UTC`,
        l.day.retryAfterSeconds(now),
        l.day.state(now),
        {limit: RATE_LIMITS.perDay, window: 'day'},
      )
    }
    if (!l.minute.canTake(now)) {
      throw tooMany(
        `Rate limit of ${RATE_LIMITS.perMinute} requests per minute exceeded`,
        l.minute.retryAfterSeconds(now),
        l.minute.state(now),
        {limit: RATE_LIMITS.perMinute, window: 'minute'},
      )
    }
    if (walletRoute && !l.walletMinute.canTake(now)) {
      throw tooMany(
        `Rate limit of ${RATE_LIMITS.walletPerMinute} wallet requests per minute exceeded`,
        l.walletMinute.retryAfterSeconds(now),
        l.walletMinute.state(now),
        {limit: RATE_LIMITS.walletPerMinute, window: 'minute', scope: 'wallets'},
      )
    }
    l.day.add(now)
    l.minute.take(now)
    if (walletRoute) l.walletMinute.take(now)
    const states = [l.minute.state(now), l.day.state(now)]
    if (walletRoute) states.push(l.walletMinute.state(now))
    const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a))
    return headersOf(tightest)
  }

  /** Throws RATE_LIMIT_EXCEEDED when `partnerId` has created its daily allowance of wallets. */
  checkWalletCreation(partnerId: string, now = this.now()): void {
    if (!this.enabled) return
    const counter = this.limitsOf(partnerId, now).walletCreations
    if (!counter.canAdd(now)) {
      throw tooMany(
        `Daily limit of ${RATE_LIMITS.walletCreationsPerDay} wallet creations reached; it resets at 00:00 UTC`,
        counter.retryAfterSeconds(now),
        counter.state(now),
        {limit: RATE_LIMITS.walletCreationsPerDay, window: 'day', scope: 'wallet_creations'},
      )
    }
  }

  noteWalletCreated(partnerId: string, now = this.now()): void {
    if (this.enabled) this.limitsOf(partnerId, now).walletCreations.add(now)
  }

  /**
   * Count one failed authentication of `subject` (a token exchange: API key and address; a Bearer
   * guess: the address) against a budget of `perMinute`. Throws RATE_LIMITED, with Retry-After,
   * when the budget was already spent; otherwise returns the headers, and the caller answers with
   * its own refusal. Only failures are counted and refused: a right credential is always accepted,
   * so nobody's failures lock the right credentials out.
   */
  noteFailedAuth(subject: string, perMinute: number, now = this.now()): Record<string, string> {
    if (!this.enabled) return {}
    let bucket = this.failedAuth.get(subject)
    if (bucket === undefined) {
      if (this.failedAuth.size >= 10_000) this.sweep(now)
      bucket = new TokenBucket(perMinute, MINUTE, now)
      this.failedAuth.set(subject, bucket)
    }
    if (!bucket.canTake(now)) {
      const retryAfter = bucket.retryAfterSeconds(now)
      throw new ApiError(
        'RATE_LIMITED',
        `Too many failed authentication attempts; retry in ${retryAfter} s`,
        {limit: perMinute, window: 'minute'},
        {headers: {...headersOf(bucket.state(now)), 'retry-after': String(retryAfter)}},
      )
    }
    bucket.take(now)
    return headersOf(bucket.state(now))
  }

  /** A successful token exchange of `subject` forgives its earlier failures. */
  forgiveAuth(subject: string): void {
    this.failedAuth.delete(subject)
  }

  /** Forget subjects whose failures have all been forgiven, so the map cannot grow without bound. */
  private sweep(now: number): void {
    for (const [subject, bucket] of this.failedAuth) if (bucket.isFull(now)) this.failedAuth.delete(subject)
  }
}
