import type {RetrySchedule} from '../context.js'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/**
 * The wait before attempt n+2 after n+1 attempts have failed. The first attempt is immediate; a
 * delivery that fails every attempt (8 in both schedules) is given up as `failed`.
 * realtime spans about 27.6 hours, so a receiver that is down overnight still gets its events.
 */
export const RETRY_DELAYS_MS: Record<RetrySchedule, readonly number[]> = {
  realtime: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  fast: [500, SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 30 * SECOND, MINUTE],
}

/** Each wait is stretched or shrunk by up to this fraction, so retries of many deliveries spread out. */
export const JITTER = 0.1

/**
 * When to try again after the `failures`-th failure, or undefined when that was the last attempt.
 * `random` is injectable for tests.
 */
export function nextAttemptAt(
  schedule: RetrySchedule,
  failures: number,
  now: number,
  random: () => number = Math.random,
): number | undefined {
  const base = RETRY_DELAYS_MS[schedule][failures - 1]
  if (base === undefined) return undefined
  return now + Math.round(base * (1 - JITTER + 2 * JITTER * random()))
}

/** How many attempts a delivery gets in all. */
export function maxAttempts(schedule: RetrySchedule): number {
  return RETRY_DELAYS_MS[schedule].length + 1
}
