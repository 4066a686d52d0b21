import {renameSync} from 'node:fs'
import type {SQLInputValue, StatementSync} from 'node:sqlite'
import type {ColumnRules, RowRules} from './column-rules.js'
import type {Companion, HeldInMemory, PendingCommit} from './held.js'
import {type HeldMark, HeldRows, type RowsWriter, writeRows} from './held-rows.js'
import {keepsWrites} from './kept-writes.js'
import type {MetaShape} from './meta-shapes.js'
import {type Columns, Prepared, type PrepareOptions, type Statement} from './prepared.js'

export type {Companion, HeldInMemory} from './held.js'
export {keepWrites} from './kept-writes.js'
export type {Columns, Statement} from './prepared.js'

import {type DatabaseSync, openDataFile} from './sqlite.js'

/**
 * Bumped whenever a table changes shape (any schema's); a file from a newer sandbox is refused, an
 * older one brought up to date by the migrations of each version in between. 3: listen sessions
 * record when a listener connected and when they ended. 4: a transaction names its owner, and the
 * tables follow their partner through the schemas' ties rather than SQL triggers. 5: partners side
 * by side, each with a name and a clock of its own; events indexed by the users, wallets and
 * transactions they are about; users numbered in the order they were created (for their list);
 * ledger entries name their wallet and the balance they leave it with; webhook deliveries and
 * attempts say what a delivery fault injected. 6: idempotent answers are a log in the order they were
 * given, found through a narrow index of their keys; a row of what events are about covers the
 * consecutive events of one change.
 */
export const SCHEMA_VERSION = 6

/** How a row of a table is tied to the partner it belongs to. */
export type Tie =
  /** The row names its partner in this column. */
  | {partnerColumn: string}
  /** The row belongs to the row of `parent` whose `key` it holds in `column`, and so to that row's partner. */
  | {parent: string; key: string; column: string}
  /** The row is no one partner's: why. */
  | {shared: string}

/** A table of a schema, what ties each of its rows to a partner, and what its rows hold (RowRules). */
export interface Table extends RowRules {
  name: string
  tie: Tie
  /** Why POST /_sandbox/reset keeps its rows (configuration, not records); absent, reset deletes them. */
  keptByReset?: string
}

/** A change that brings a data file written before schema `version` up to it. */
export interface Migration {
  version: number
  up(database: Database): void
}

/**
 * The tables one part of the sandbox keeps, described once: the SQL that creates them as they are
 * now (idempotent: CREATE … IF NOT EXISTS), how each row is tied to its partner, and the
 * migrations that bring an older data file's tables to the same shape. A new file gets the SQL
 * alone; an older one gets the SQL (its missing tables), then the migrations, version by version.
 * An index on a column a migration adds goes in `indexes`, which every file gets last.
 */
export interface Schema {
  /** Whose tables: a feature's folder, or the infrastructure file that keeps them. */
  name: string
  sql?: string
  /** Indexes on columns a migration adds (CREATE INDEX IF NOT EXISTS), made after the migrations. */
  indexes?: string
  tables?: readonly Table[]
  migrations?: readonly Migration[]
}

/** A table whose rows name their partner in `partner_id`, as most do, with what its other columns hold. */
export function byPartner(name: string, columns: ColumnRules, more: Omit<Table, 'name' | 'tie'> = {}): Table {
  return {name, tie: {partnerColumn: 'partner_id'}, columns, ...more}
}

/** A migration that is SQL alone. */
export const sqlMigration = (version: number, sql: string): Migration => ({
  version,
  up: (database) => database.db.exec(sql),
})

/** The data file's own values: its schema version and its keys. */
export const META: Schema = {
  name: 'database',
  sql: `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`,
  tables: [{name: 'meta', tie: {shared: "the data file's own: its schema version and keys"}}],
}

/** Add a column to a table that lacks it (a migration's step; a file that has it is left alone). */
export function addColumn(database: Database, table: string, column: string, type: string): void {
  const has = database.prepare<{name: string}>(
    `SELECT name FROM pragma_table_info('${table}') WHERE name = ?`,
  )
  if (has.get(column) === undefined) database.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`)
}

/**
 * A transaction under way at one depth: its savepoint (none where it is the outermost BEGIN, or
 * shares the one below), `#writes` when it began, and where the held rows stood (HeldMark).
 */
interface Frame {
  name: string | undefined
  writes: number
  held: HeldMark
}

/** The sandbox's SQLite database, with a transaction helper that nests. */
export class Database {
  #db: DatabaseSync
  private depth = 0
  #groupCommit = false
  #pending: PendingCommit | undefined
  readonly #control = new Map<string, StatementSync>()
  /** Bumped when the file is replaced: a statement prepared before is prepared again on its next use. */
  #generation = 0
  readonly #companions = new Set<Companion>()
  readonly #held = new Set<HeldInMemory>()
  /** Statements run that may have written: a savepoint opened since none ran would hold nothing. */
  #writes = 0
  /** Rows inserted under the open group, written together before it commits (holdRows). */
  readonly #heldRows = new HeldRows()
  /** Why held rows failed to be written, if they did since the group opened: it fails with it. */
  #unwritten: unknown
  /** At each depth, its savepoint (see Frame). */
  readonly #savepoints: Frame[] = []

  readonly #path: string

  /** Open `path`, with `schemas`' tables created or brought up to date (META's always). */
  constructor(path: string, schemas: readonly Schema[] = []) {
    this.#path = path
    this.#db = openDataFile(path)
    this.migrate([META, ...schemas.filter((schema) => schema !== META)])
  }

  /** The connection: the same until the file is replaced (`replaceFile`). */
  get db(): DatabaseSync {
    // Whatever runs on it directly may write, and may read any table: rows held back are written first.
    this.#writeHeldRows()
    this.#writes++
    return this.#db
  }

  /**
   * Note a statement run through `prepare`'s statements, which names `words`: any but a SELECT may
   * write, and one that names a table with rows held back reads them once they are written.
   */
  noteStatement(readOnly: boolean, words: ReadonlySet<string>): void {
    if (this.#heldRows.size > 0 && this.#heldRows.touchedBy(words)) this.#writeHeldRows(words)
    if (!readOnly) this.#writes++
  }

  /**
   * Hold `rows` of `insert` back while a group commit is open (false: none is, insert them now),
   * written together before it commits or a statement naming their table runs; dropped with the
   * savepoint they were held in (HeldRows.undoTo). Answers wait for the commit.
   */
  holdRows(insert: RowsWriter, rows: readonly (readonly SQLInputValue[])[]): boolean {
    if (this.#pending === undefined) return false
    this.#heldRows.hold(insert, rows)
    this.#writes++
    return true
  }

  /** The rows held back while a group commit is open (holdRows), to look among; undefined when none is. */
  get held(): Pick<HeldRows, 'count' | 'latest'> | undefined {
    return this.#pending === undefined ? undefined : this.#heldRows
  }

  /** Write the rows held back (those of the tables among `words`, if given), inside the savepoints open now. */
  #writeHeldRows(words?: ReadonlySet<string>): void {
    if (this.#heldRows.size === 0) return
    try {
      writeRows(this.#heldRows.take(this.#marksBelow(this.depth), words))
    } catch (err) {
      // Which of them were written is not known: the group cannot commit (flush).
      this.#unwritten ??= err
      throw err
    }
  }

  /** The held-row marks of the savepoints open below `depth`. */
  #marksBelow(depth: number): HeldMark[] {
    return this.#savepoints.slice(0, depth).flatMap((frame) => (frame.name === undefined ? [] : [frame.held]))
  }

  /** The data file's path, or :memory:. */
  get path(): string {
    return this.#path
  }

  /**
   * Prepare `sql`, whose rows are `Row`: the row type is named once, here beside the SQL that
   * decides it, and every `get` and `all` of the statement answers it. Prepare once and keep the
   * statement (a constructor or a table of statements), not once per call.
   */
  prepare<Row extends Columns<Row> = never>(sql: string, options: PrepareOptions = {}): Statement<Row> {
    // The one cast of a row: node:sqlite types every row as Record<string, SQLOutputValue>, and
    // only the SQL knows its columns.
    return new Prepared(this, sql, options) as unknown as Statement<Row>
  }

  /** The statement `sql` on the current connection: `prepared` itself, unless the file was replaced since. */
  statementOf(sql: string, prepared: {statement: StatementSync; generation: number}): StatementSync {
    if (prepared.generation !== this.#generation) {
      prepared.statement = this.#db.prepare(sql)
      prepared.generation = this.#generation
    }
    return prepared.statement
  }

  /** A statement of the current connection, and the generation it was prepared in. */
  prepareNow(sql: string): {statement: StatementSync; generation: number} {
    return {statement: this.#db.prepare(sql), generation: this.#generation}
  }

  /** Keep `holder` in step with the file: flushed and let go of at the moments HeldInMemory names. */
  holds(holder: HeldInMemory): void {
    this.#held.add(holder)
  }

  /** Let go of everything held in memory (the file changed under it: a partner's rows deleted). */
  forgetHeld(): void {
    for (const holder of this.#held) holder.forget()
  }

  #flushHeld(): void {
    for (const holder of this.#held) holder.flush?.()
  }

  /** Whether a transaction is running (a write now is part of it). */
  get inTransaction(): boolean {
    return this.depth > 0
  }

  /** Stop `companion` (and start it again) whenever the file is replaced. */
  accompany(companion: Companion): () => void {
    this.#companions.add(companion)
    return () => this.#companions.delete(companion)
  }

  /**
   * Run `fn` with the data file at rest: its companions stopped, what was already answered
   * committed, and the log copied back into the file and emptied, so that the file alone holds
   * everything and nothing changes it until `fn` returns.
   */
  async atRest<T>(fn: () => T): Promise<T> {
    if (this.#path === ':memory:' || this.#path === '') throw new Error('an in-memory database has no file')
    const companions = [...this.#companions]
    await Promise.all(companions.map((c) => c.pause()))
    try {
      this.flush()
      this.#checkpoint()
      return fn()
    } finally {
      for (const companion of companions) companion.resume()
    }
  }

  /**
   * Replace the data file with the SQLite file at `path`, made ready by `prepare` (which runs on the
   * current connection, the file at rest): the connection closes, `path` is renamed over the data
   * file, and the same connection settings open it. Statements prepared before work on the new
   * file. A crash at any moment leaves the old file or the new one, whole.
   */
  replaceFile(path: string, prepare: () => void): Promise<void> {
    return this.atRest(() => {
      prepare()
      this.#checkpoint()
      this.#db.close()
      try {
        renameSync(path, this.#path)
      } finally {
        this.#db = openDataFile(this.#path)
        this.#generation++
        this.#control.clear()
        this.forgetHeld()
      }
    })
  }

  private migrate(schemas: readonly Schema[]): void {
    this.transaction(() => {
      for (const schema of schemas) if (schema.sql !== undefined) this.db.exec(schema.sql)
      const row = this.prepare<{value: string}>("SELECT value FROM meta WHERE key = 'schema_version'").get()
      if (row === undefined) {
        this.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION))
      } else if (!/^\d{1,6}$/.test(row.value)) {
        throw this.damaged('schema_version', row.value, 'a schema version')
      } else if (Number(row.value) > SCHEMA_VERSION) {
        throw new Error(
          `the sandbox data file was written by a newer payctl (schema ${row.value}, this one knows ${SCHEMA_VERSION})`,
        )
      } else if (Number(row.value) < SCHEMA_VERSION) {
        // Version by version, each schema in the order given: a migration may rely on an earlier
        // schema's of the same version (the kernel's columns before the products fill them).
        for (let version = Number(row.value) + 1; version <= SCHEMA_VERSION; version++) {
          for (const schema of schemas) {
            for (const migration of schema.migrations ?? [])
              if (migration.version === version) migration.up(this)
          }
        }
        this.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION))
      }
      for (const schema of schemas) if (schema.indexes !== undefined) this.db.exec(schema.indexes)
    })
  }

  #checkpoint(): void {
    const [done] = this.#db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all() as {busy: number}[]
    if (done?.busy !== 0) throw new Error('the data file is busy: its log could not be copied back')
  }

  /**
   * Group commit, for a running sandbox: from now on the transactions of one turn of the event loop
   * (every request whose body arrived in it, a settlement tick) share one SQLite transaction,
   * committed once at the end of the turn by `flush`. Each keeps its all-or-nothing semantics
   * in a savepoint of its own. Whatever shows a transaction's outcome outside the process (an HTTP
   * answer, a webhook delivery) must wait for `committed()` or call `flush()` first.
   */
  groupCommits(): void {
    this.#groupCommit = true
  }

  /**
   * Run `fn` in a transaction and roll it back if `fn` throws (unless the error is marked with
   * keepWrites). A nested call runs in a savepoint, so a failing inner step undoes only its own
   * writes and the outer caller decides what to keep. Under group commit the outermost call is a
   * savepoint of the open group too, and its writes are durable once the group commits.
   */
  transaction<T>(fn: () => T): T {
    if (this.depth === 0 && this.#groupCommit) this.#openGroup()
    const shared = this.#sharedSavepoint()
    if (shared !== undefined) return this.#inShared(shared, fn)
    const savepoint = this.depth > 0 || this.#pending !== undefined ? `sp${this.depth}` : undefined
    this.#flushHeld()
    this.#run(savepoint === undefined ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`)
    const frame: Frame = {name: savepoint, writes: this.#writes, held: this.#heldRows.mark()}
    this.#savepoints[this.depth] = frame
    this.depth++
    const end = () => {
      this.#flushHeld()
      if (savepoint === undefined) this.#writeHeldRows()
      this.#run(savepoint === undefined ? 'COMMIT' : `RELEASE ${savepoint}`)
    }
    try {
      const result = fn()
      end()
      return result
    } catch (err) {
      if (keepsWrites(err)) end()
      else {
        this.forgetHeld()
        if (savepoint === undefined) this.#run('ROLLBACK')
        else {
          this.#run(`ROLLBACK TO ${savepoint}`)
          this.#run(`RELEASE ${savepoint}`)
        }
        this.#heldRows.undoTo(frame.held, this.#marksBelow(this.depth - 1))
      }
      throw err
    } finally {
      this.depth--
    }
  }

  /**
   * The savepoint a nested transaction may share instead of opening its own: the nearest one below
   * (a savepoint, not the outermost BEGIN) when nothing that may write has run since it began. Rolling
   * back to it then undoes exactly what the nested transaction did, and releasing it later keeps
   * that: a request's transaction, its operation's and the kernel's, one inside the other before
   * anything is written, cost one savepoint instead of three.
   */
  #sharedSavepoint(): Frame | undefined {
    for (let depth = this.depth - 1; depth >= 0; depth--) {
      const below = this.#savepoints[depth]!
      if (below.writes !== this.#writes) return undefined
      if (below.name !== undefined) return below
    }
    return undefined
  }

  /** Run `fn` as a nested transaction in the savepoint of `below`, an enclosing one (see #sharedSavepoint). */
  #inShared<T>(below: Frame, fn: () => T): T {
    this.#savepoints[this.depth] = {name: undefined, writes: this.#writes, held: this.#heldRows.mark()}
    this.depth++
    try {
      return fn()
    } catch (err) {
      if (!keepsWrites(err)) {
        this.forgetHeld()
        this.#run(`ROLLBACK TO ${below.name}`)
        this.#heldRows.undoTo(below.held, this.#marksBelow(this.#savepoints.indexOf(below)))
      }
      throw err
    } finally {
      this.depth--
    }
  }

  /** Run one of the few transaction-control statements, prepared once (every request runs several). */
  #run(sql: string): void {
    let statement = this.#control.get(sql)
    if (statement === undefined) {
      statement = this.#db.prepare(sql)
      this.#control.set(sql, statement)
    }
    statement.run()
  }

  #openGroup(): void {
    if (this.#pending !== undefined) return
    this.#run('BEGIN IMMEDIATE')
    let resolve!: () => void
    let reject!: (err: unknown) => void
    const promise = new Promise<void>((res, rej) => {
      resolve = res
      reject = rej
    })
    // A failed commit is reported to whoever waits for it; nobody waiting is no crash.
    promise.catch(() => undefined)
    this.#pending = {promise, resolve, reject}
    // After the I/O callbacks of this turn: every request that arrived in it joins the group.
    setImmediate(() => {
      try {
        this.flush()
      } catch {
        // Already passed on to the waiters.
      }
    })
  }

  /**
   * Settled once the writes made so far are committed; rejected if that commit failed (then none of
   * them exist). Undefined when nothing waits to be committed.
   */
  committed(): Promise<void> | undefined {
    return this.#pending?.promise
  }

  /** Commit the open group now, if there is one and no transaction is running. */
  flush(): void {
    const pending = this.#pending
    if (pending === undefined || this.depth > 0) return
    this.#pending = undefined
    try {
      if (this.#unwritten !== undefined) throw this.#unwritten
      this.#flushHeld()
      this.#writeHeldRows()
      this.#run('COMMIT')
    } catch (err) {
      this.#unwritten = undefined
      this.#heldRows.take([])
      this.forgetHeld()
      if (this.#db.isTransaction) this.#run('ROLLBACK')
      pending.reject(err)
      throw err
    }
    pending.resolve()
  }

  /**
   * Read a value of the `meta` table, or store `create()` under `key` the first time. A stored
   * value that is not `shape` (a damaged or hand-edited file) refuses to start: a sandbox that ran
   * on it would fail every request that reads it.
   */
  metaValue(key: string, create: () => string, shape: MetaShape): string {
    return this.transaction(() => {
      const row = this.prepare<{value: string}>('SELECT value FROM meta WHERE key = ?').get(key)
      if (row !== undefined) {
        if (!shape.valid(row.value)) throw this.damaged(key, row.value, shape.what)
        return row.value
      }
      const value = create()
      this.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, value)
      return value
    })
  }

  /** The refusal of a value read back at start that is not what payctl writes: DATA_FILE_DAMAGED. */
  damaged(key: string, value: string, what: string): Error {
    const message = `the sandbox data file ${this.#path} is damaged: its ${key} is ${JSON.stringify(value.slice(0, 40))}, not ${what}; restore it from a copy, or start afresh with another --data`
    return Object.assign(new Error(message), {code: 'DATA_FILE_DAMAGED'})
  }

  close(): void {
    if (!this.#db.isOpen) return
    this.flush()
    this.#db.close()
  }
}
