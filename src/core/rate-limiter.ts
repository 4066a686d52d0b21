/**
 * A client-side token bucket: paces requests to an environment's rate limit so a bulk job
 * (seeding) stays under it instead of leaning on 429s, and slows down further when the service
 * answers 429 anyway.
 */
export class TokenBucket {
  readonly #capacity: number
  readonly #perMs: number
  #tokens: number
  #last = performance.now()
  #pausedUntil = 0
  #queue: Promise<void> = Promise.resolve()

  /** `perMinute` requests a minute, bursting up to `burst` (default: a second's worth, at least 1). */
  constructor(perMinute: number, burst = Math.max(1, Math.ceil(perMinute / 60))) {
    this.#capacity = burst
    this.#perMs = perMinute / 60_000
    this.#tokens = burst
  }

  /** Wait for a token. Callers are served in order. */
  take(): Promise<void> {
    const turn = this.#queue.then(() => this.#wait())
    this.#queue = turn
    return turn
  }

  /** The service said 429: send nothing more for `ms`, and start again from an empty bucket. */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms)
    this.#tokens = 0
  }

  async #wait(): Promise<void> {
    for (;;) {
      const now = performance.now()
      if (now < this.#pausedUntil) {
        await sleep(this.#pausedUntil - now)
        this.#last = performance.now()
        continue
      }
      this.#tokens = Math.min(this.#capacity, this.#tokens + (now - this.#last) * this.#perMs)
      this.#last = now
      if (this.#tokens >= 1) {
        this.#tokens -= 1
        return
      }
      await sleep((1 - this.#tokens) / this.#perMs)
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
