import {describe, expect, test} from 'vitest'
import {ApiError} from '../../src/sandbox/http/api-error.js'
import {DailyCounter, RATE_LIMITS, RateLimiter, TokenBucket} from '../../src/sandbox/http/rate-limiter.js'
import {start} from './helpers.js'

describe('rate limits over HTTP', () => {
  test('answers 429 RATE_LIMIT_EXCEEDED with Retry-After once the minute budget is spent, then recovers', async () => {
    // The sandbox reads the time from this clock: the window refills when the test moves it, not
    // while a busy machine is slow, and the wait for Retry-After takes no time.
    let now = Date.UTC(2025, 0, 1, 12)
    const t = await start({now: () => now})
    try {
      const first = await t.get('/v1/wallets')
      expect(first.headers.get('x-ratelimit-limit')).toBe('100')
      expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
      expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(now / 1000))
      // A hundred more at once: the clock stands still, so the budget lets exactly 99 of them in.
      const replies = await Promise.all(Array.from({length: 100}, () => t.get('/v1/wallets')))
      expect(replies.filter((r) => r.status === 200)).toHaveLength(99)
      const refused = replies.filter((r) => r.status !== 200)
      expect(refused.map((r) => r.status)).toEqual([429])
      const limited = refused[0]!
      expect(limited.body).toMatchObject({
        success: false,
        error: {code: 'RATE_LIMIT_EXCEEDED', details: {limit: 100, window: 'minute'}},
      })
      const retryAfter = Number(limited.headers.get('retry-after'))
      expect(Number.isInteger(retryAfter)).toBe(true)
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(2)
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
      // Health is never limited.
      const health = await t.get('/_sandbox/health', {auth: null})
      expect(health.status).toBe(200)
      expect(health.headers.get('x-ratelimit-limit')).toBeNull()
      // Still limited until the time it said has passed.
      expect((await t.get('/v1/wallets')).status).toBe(429)
      now += retryAfter * 1000
      expect((await t.get('/v1/wallets')).status).toBe(200)
    } finally {
      await t.close()
    }
  })

  test('rateLimit off lets every request through without rate-limit headers', async () => {
    const t = await start({rateLimit: 'off'})
    try {
      const replies = await Promise.all(Array.from({length: 130}, () => t.get('/v1/wallets')))
      expect(replies.every((r) => r.status === 200)).toBe(true)
      expect(replies[0]?.headers.get('x-ratelimit-limit')).toBeNull()
    } finally {
      await t.close()
    }
  })
})

describe('RateLimiter', () => {
  const minute = 60_000

  test('a token bucket refills continuously and says when the next token comes', () => {
    const bucket = new TokenBucket(100, minute, 0)
    for (let i = 0; i < 100; i++) bucket.take(0)
    expect(bucket.canTake(0)).toBe(false)
    expect(bucket.retryAfterSeconds(0)).toBe(1) // 0.6 s, rounded up
    expect(bucket.canTake(600)).toBe(true)
    expect(bucket.state(600)).toEqual({limit: 100, remaining: 1, reset: 60})
  })

  test('a daily counter starts again at midnight UTC', () => {
    const counter = new DailyCounter(2)
    const t0 = Date.UTC(2025, 0, 1, 23, 59, 0)
    counter.add(t0)
    counter.add(t0)
    expect(counter.canAdd(t0)).toBe(false)
    expect(counter.retryAfterSeconds(t0)).toBe(60)
    expect(counter.canAdd(Date.UTC(2025, 0, 2, 0, 0, 1))).toBe(true)
  })

  test('allows 10,000 requests a day per partner, however slowly they come', () => {
    const limiter = new RateLimiter(true)
    let now = Date.UTC(2025, 0, 1)
    for (let i = 0; i < RATE_LIMITS.perDay; i++) {
      limiter.admit('p', false, now)
      now += 1000 // one a second never empties the minute bucket
    }
    expect(() => limiter.admit('p', false, now)).toThrow(ApiError)
    try {
      limiter.admit('p', false, now)
    } catch (err) {
      expect((err as ApiError).code).toBe('RATE_LIMIT_EXCEEDED')
      expect((err as ApiError).details).toMatchObject({window: 'day', limit: 10_000})
      expect(Number((err as ApiError).headers['retry-after'])).toBeGreaterThan(0)
    }
    expect(() => limiter.admit('other', false, now)).not.toThrow()
  })

  test('allows 1,000 wallet creations a day per partner', () => {
    const limiter = new RateLimiter(true)
    const now = Date.UTC(2025, 0, 1, 12)
    for (let i = 0; i < RATE_LIMITS.walletCreationsPerDay; i++) {
      limiter.checkWalletCreation('p', now)
      limiter.noteWalletCreated('p', now)
    }
    expect(() => limiter.checkWalletCreation('p', now)).toThrow(/wallet creations/)
    expect(() => limiter.checkWalletCreation('p', now + 12 * 3600_000)).not.toThrow()
  })

  test('reports the tightest limit in the headers', () => {
    const limiter = new RateLimiter(true)
    const headers = limiter.admit('p', true, 0)
    expect(headers['x-ratelimit-limit']).toBe('100')
    expect(headers['x-ratelimit-remaining']).toBe('99')
  })

  test('is silent when off', () => {
    const limiter = new RateLimiter(false)
    expect(limiter.admit('p', true, 0)).toEqual({})
    expect(limiter.noteFailedAuth('127.0.0.1', 10)).toEqual({})
  })
})
