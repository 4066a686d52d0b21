import {countShape, type Database, type Statement} from './database.js'
import {ApiError} from './errors.js'

const OFFSET_KEY = 'clock_offset_ms'
/** How far the clock may be moved in all: a century, so that every date it gives is a valid one. */
export const MAX_OFFSET_MS = 100 * 365 * 86_400_000

/**
 * The sandbox clock: real time plus an offset that `POST /_sandbox/clock/advance` moves forward.
 * Transactions are dated, settled and counted against daily limits by this clock, so a test can
 * skip "1-3 days" without waiting. The offset is kept in the data file: a restart does not rewind
 * time past payments that are already due.
 */
export class SandboxClock {
  private offsetMs: number
  private readonly save: Statement

  constructor(database: Database) {
    this.offsetMs = Number(
      database.metaValue(
        OFFSET_KEY,
        () => '0',
        countShape(MAX_OFFSET_MS, 'a clock offset in milliseconds (at most a century)'),
      ),
    )
    this.save = database.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    )
  }

  nowMs(): number {
    return Date.now() + this.offsetMs
  }

  now(): Date {
    return new Date(this.nowMs())
  }

  get offsetSeconds(): number {
    return this.offsetMs / 1000
  }

  advance(seconds: number): void {
    if (this.offsetMs + seconds * 1000 > MAX_OFFSET_MS) {
      throw new ApiError('VALIDATION_ERROR', 'The sandbox clock moves at most a century in all', {
        field: 'seconds',
        issues: [
          {
            path: 'seconds',
            code: 'too_big',
            message: `at most ${(MAX_OFFSET_MS - this.offsetMs) / 1000} more seconds`,
          },
        ],
      })
    }
    this.offsetMs += seconds * 1000
    this.save.run(OFFSET_KEY, String(this.offsetMs))
  }
}

/** How often the sandbox looks for work that fell due on its clock. */
export const TICK_MS = 200

/**
 * What falls due on the sandbox clock, whoever scheduled it: the kernel's settlement of
 * asynchronous payments first, then each feature's work (BNPL instalments, round-up transfers), in
 * the order of the feature list. Run on every tick and every clock advance.
 */
export class DueWork {
  readonly #work: (() => number)[] = []

  /** Run `work` from now on whenever the due work runs; it returns how many records it finished. */
  add(work: () => number): void {
    this.#work.push(work)
  }

  /** Run every piece once, in order; returns how many records they finished in all. */
  run(): number {
    return this.#work.reduce((done, work) => done + work(), 0)
  }

  /**
   * Run it in the background, as the real service's processors would report days later. Ticks are
   * cheap (an indexed query each) and never keep the process alive.
   */
  tick(log?: (line: string) => void): {stop(): void} {
    const timer = setInterval(() => {
      try {
        this.run()
      } catch (err) {
        // Another process may hold the data file for a moment: the next tick tries again.
        log?.(`settlement failed: ${String(err)}`)
      }
    }, TICK_MS)
    timer.unref()
    return {stop: () => clearInterval(timer)}
  }
}
