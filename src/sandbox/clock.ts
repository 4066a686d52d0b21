import type {Database, Statement} from './database.js'

const OFFSET_KEY = 'clock_offset_ms'

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
    this.offsetMs = Number(database.metaValue(OFFSET_KEY, () => '0')) || 0
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
    this.offsetMs += seconds * 1000
    this.save.run(OFFSET_KEY, String(this.offsetMs))
  }
}
