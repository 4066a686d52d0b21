import type {ClockReading} from '../contract/control.js'
import {ApiError} from './http/api-error.js'
import {column} from './storage/column-rules.js'
import {byPartner, type Database, type Schema, type Statement, sqlMigration} from './storage/database.js'

/** How far a partner's clock may be moved in all: a century, so that every date it gives is a valid one. */
export const MAX_OFFSET_MS = 100 * 365 * 86_400_000
/** How far one move may take a clock: a year, as far as `seconds` may say. */
export const MAX_MOVE_MS = 365 * 86_400_000

/** Each partner's clock, where it is not real time. */
export const CLOCKS: Schema = {
  name: 'clock',
  sql: `
CREATE TABLE IF NOT EXISTS partner_clocks (
  partner_id TEXT PRIMARY KEY,
  offset_ms INTEGER NOT NULL,
  frozen_at_ms INTEGER
) WITHOUT ROWID;
`,
  tables: [
    byPartner('partner_clocks', {
      // As the clock reads them back at start (SandboxClock): a century and more of moves, either way.
      offset_ms: column.int(-2 * MAX_OFFSET_MS, 2 * MAX_OFFSET_MS),
      frozen_at_ms: column.ms,
    }),
  ],
  migrations: [
    // Schema 4 kept one clock for the whole file, which every partner's records were dated by:
    // each partner keeps the time it saw.
    sqlMigration(
      5,
      `INSERT OR IGNORE INTO partner_clocks (partner_id, offset_ms, frozen_at_ms)
         SELECT partners.partner_id, CAST(meta.value AS INTEGER), NULL
         FROM partners JOIN meta ON meta.key = 'clock_offset_ms' WHERE meta.value != '0';
       DELETE FROM meta WHERE key = 'clock_offset_ms';`,
    ),
  ],
}

/** Where one partner's clock stands: its offset from real time, and the time it is stopped at. */
interface Setting {
  offsetMs: number
  /** The partner's time when it was frozen; undefined while it runs. */
  frozenAtMs: number | undefined
}

const REAL_TIME: Setting = {offsetMs: 0, frozenAtMs: undefined}

/** A move refused: past the century, or backwards. */
function refusedMove(field: string, message: string): ApiError {
  return new ApiError('VALIDATION_ERROR', message, {
    field,
    issues: [{path: field, code: 'invalid_value', message}],
  })
}

/**
 * The partners' clocks: each partner's time is real time plus an offset it moves
 * (`POST /_sandbox/clock/advance`), or a time it froze at. Its records are dated, settled and
 * counted against daily limits by it, so a test can skip "1-3 days" without waiting, and no
 * partner's move touches another's (docs/sandbox.md#clocks). Kept in the data file: a restart does
 * not rewind time past payments that are already due.
 */
export class SandboxClock {
  readonly #settings = new Map<string, Setting>()
  readonly #save: Statement
  readonly #forget: Statement
  readonly #load: Statement<{offset_ms: number; frozen_at_ms: number | null}>

  constructor(database: Database) {
    const rows = database
      .prepare<{partner_id: string; offset_ms: number; frozen_at_ms: number | null}>(
        'SELECT * FROM partner_clocks',
      )
      .all()
    for (const row of rows) {
      // A damaged or hand-edited row would date every record of the partner wrongly, or not at all.
      const valid = (ms: unknown) => Number.isSafeInteger(ms) && Math.abs(Number(ms)) <= 2 * MAX_OFFSET_MS
      if (!valid(row.offset_ms))
        throw database.damaged(
          `clock of ${row.partner_id}`,
          String(row.offset_ms),
          'an offset in milliseconds',
        )
      if (row.frozen_at_ms !== null && !(Number.isSafeInteger(row.frozen_at_ms) && row.frozen_at_ms > 0))
        throw database.damaged(
          `frozen clock of ${row.partner_id}`,
          String(row.frozen_at_ms),
          'a time in milliseconds',
        )
      this.#settings.set(row.partner_id, {offsetMs: row.offset_ms, frozenAtMs: row.frozen_at_ms ?? undefined})
    }
    this.#save = database.prepare(
      `INSERT INTO partner_clocks (partner_id, offset_ms, frozen_at_ms) VALUES (?, ?, ?)
       ON CONFLICT (partner_id) DO UPDATE SET offset_ms = excluded.offset_ms, frozen_at_ms = excluded.frozen_at_ms`,
    )
    this.#forget = database.prepare('DELETE FROM partner_clocks WHERE partner_id = ?')
    this.#load = database.prepare('SELECT offset_ms, frozen_at_ms FROM partner_clocks WHERE partner_id = ?')
  }

  /** The partner's time, in milliseconds since the epoch. */
  nowMs(partnerId: string): number {
    const setting = this.#settings.get(partnerId) ?? REAL_TIME
    return setting.frozenAtMs ?? Date.now() + setting.offsetMs
  }

  now(partnerId: string): Date {
    return new Date(this.nowMs(partnerId))
  }

  isFrozen(partnerId: string): boolean {
    return this.#settings.get(partnerId)?.frozenAtMs !== undefined
  }

  /** Where the partner's clock stands, as the control routes answer it. */
  read(partnerId: string): ClockReading {
    const nowMs = this.nowMs(partnerId)
    return {
      now: new Date(nowMs).toISOString(),
      offsetSeconds: Math.round((nowMs - Date.now()) / 1000),
      frozen: this.isFrozen(partnerId),
    }
  }

  /** Move the partner's clock forward by `seconds`, frozen or not. */
  advance(partnerId: string, seconds: number): void {
    this.moveTo(partnerId, this.nowMs(partnerId) + seconds * 1000, 'seconds')
  }

  /**
   * Move the partner's clock to `targetMs`: forward only, at most a year at once and a century in
   * all. A frozen clock stays frozen, at the new time.
   */
  moveTo(partnerId: string, targetMs: number, field = 'to'): void {
    const nowMs = this.nowMs(partnerId)
    if (targetMs < nowMs) {
      throw refusedMove(
        field,
        `The sandbox clock only moves forward: it is ${new Date(nowMs).toISOString()} for this partner`,
      )
    }
    if (targetMs - nowMs > MAX_MOVE_MS)
      throw refusedMove(field, 'The sandbox clock moves at most a year at once')
    const offsetMs = targetMs - Date.now()
    if (offsetMs > MAX_OFFSET_MS) {
      throw refusedMove(
        field,
        `The sandbox clock moves at most a century in all: at most ${Math.floor((MAX_OFFSET_MS - (nowMs - Date.now())) / 1000)} more seconds`,
      )
    }
    this.#set(partnerId, {offsetMs, frozenAtMs: this.isFrozen(partnerId) ? targetMs : undefined})
  }

  /** Stop the partner's time where it is; nothing its clock drives happens until it moves again. */
  freeze(partnerId: string): ClockReading {
    if (this.isFrozen(partnerId)) throw stateError('The sandbox clock is frozen already')
    const nowMs = this.nowMs(partnerId)
    this.#set(partnerId, {offsetMs: nowMs - Date.now(), frozenAtMs: nowMs})
    return this.read(partnerId)
  }

  /** Let the partner's time run again from where it stopped. */
  resume(partnerId: string): ClockReading {
    const frozenAtMs = this.#settings.get(partnerId)?.frozenAtMs
    if (frozenAtMs === undefined) throw stateError('The sandbox clock is not frozen')
    this.#set(partnerId, {offsetMs: frozenAtMs - Date.now(), frozenAtMs: undefined})
    return this.read(partnerId)
  }

  /** Put the partner back on real time (a reset, a deleted partner). */
  forget(partnerId: string): void {
    this.#settings.delete(partnerId)
    this.#forget.run(partnerId)
  }

  /** Read the partner's clock again from the data file, where a restored snapshot put it. */
  reload(partnerId: string): void {
    const row = this.#load.get(partnerId)
    if (row === undefined) this.#settings.delete(partnerId)
    else this.#settings.set(partnerId, {offsetMs: row.offset_ms, frozenAtMs: row.frozen_at_ms ?? undefined})
  }

  #set(partnerId: string, setting: Setting): void {
    this.#save.run(partnerId, setting.offsetMs, setting.frozenAtMs ?? null)
    this.#settings.set(partnerId, setting)
  }
}

function stateError(message: string): ApiError {
  return new ApiError('INVALID_STATE_TRANSITION', message)
}

/** How often the sandbox looks for work that fell due on the partners' clocks. */
export const TICK_MS = 200

/** A piece of due work: finish what fell due for one partner by its time; returns how many records. */
export type Due = (partnerId: string, nowMs: number) => number

/**
 * What falls due on a partner's clock, whoever scheduled it: the kernel's settlement of
 * asynchronous payments first, then each feature's work (BNPL instalments, round-up transfers), in
 * the order of the feature list. Run for every partner on every tick, and for one partner when it
 * moves its clock.
 */
export class DueWork {
  readonly #work: Due[] = []

  constructor(
    private readonly clock: SandboxClock,
    private readonly partners: () => Iterable<string>,
  ) {}

  /** Run `work` from now on whenever the due work runs. */
  add(work: Due): void {
    this.#work.push(work)
  }

  /** Run every piece once for the partner, by its clock; returns how many records they finished. */
  run(partnerId: string): number {
    return this.#work.reduce((done, work) => done + work(partnerId, this.clock.nowMs(partnerId)), 0)
  }

  /**
   * Run it for every partner; returns how many records were finished in all. One partner's failure
   * (its work throws) is told to `failed` and holds up no other partner's: the next partner's runs.
   */
  runAll(failed: (partnerId: string, err: unknown) => void = () => undefined): number {
    let done = 0
    for (const partnerId of this.partners()) {
      try {
        done += this.run(partnerId)
      } catch (err) {
        failed(partnerId, err)
      }
    }
    return done
  }

  /**
   * Run it in the background, as the real service's processors would report days later. Ticks are
   * cheap (an indexed query a piece and partner) and never keep the process alive.
   */
  tick(log?: (line: string) => void): {stop(): void} {
    const timer = setInterval(() => {
      // Another process may hold the data file for a moment: the next tick tries again.
      this.runAll((partnerId, err) => log?.(`settlement failed for partner ${partnerId}: ${String(err)}`))
    }, TICK_MS)
    timer.unref()
    return {stop: () => clearInterval(timer)}
  }
}
