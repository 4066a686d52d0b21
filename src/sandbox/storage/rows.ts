import type {SQLInputValue, StatementResultingChanges} from 'node:sqlite'
import type {Database, Statement} from './database.js'
import type {RowsWriter} from './held-rows.js'

/** The table an INSERT or UPDATE writes. */
function tableOf(sql: string): string {
  const table = /^\s*(?:INSERT\s+INTO|UPDATE)\s+(\w+)/i.exec(sql)?.[1]
  if (table === undefined) throw new Error(`not an INSERT or UPDATE of a table: ${sql}`)
  return table.toLowerCase()
}

/** The most rows one statement writes when held rows are written: 64, then what is left by halves. */
const MOST_AT_ONCE = 64

/**
 * An INSERT of any number of rows in one statement (`INSERT INTO t (a, b) VALUES (?, ?), (?, ?)`),
 * prepared once for each count: a transfer writes its two records, its two ledger entries and its
 * three events each in one statement, which costs SQLite and node:sqlite less than one a row. Under
 * group commit, `hold` keeps the rows back until the group commits, to write the whole turn's at once.
 */
export class RowsInsert implements RowsWriter {
  readonly #byCount: Statement[] = []
  readonly table: string

  /** `head` is the statement up to VALUES (`INSERT INTO t (a, b)`); each row has `columns` values. */
  constructor(
    private readonly database: Database,
    private readonly head: string,
    private readonly columns: number,
  ) {
    this.table = tableOf(head)
  }

  /** Insert `rows`, each `columns` values; the last row's rowid is the result's. */
  run(rows: readonly (readonly SQLInputValue[])[]): StatementResultingChanges {
    const count = rows.length
    let statement = this.#byCount[count]
    if (statement === undefined) {
      const row = `(${Array.from({length: this.columns}, () => '?').join(', ')})`
      statement = this.database.prepare(
        `${this.head} VALUES ${Array.from({length: count}, () => row).join(', ')}`,
      )
      this.#byCount[count] = statement
    }
    return statement.run(...rows.flat())
  }

  /**
   * Insert `rows` now, or, while a group commit is open, hold them back until it commits (or until
   * a statement reads their table first): Database.holdRows. Nothing is answered before then.
   */
  hold(rows: readonly (readonly SQLInputValue[])[]): void {
    if (rows.length > 0 && !this.database.holdRows(this, rows)) this.run(rows)
  }

  /** Write held rows: in statements of MOST_AT_ONCE rows, then of halves of that, so that few counts are prepared. */
  write(rows: readonly (readonly SQLInputValue[])[]): void {
    let at = 0
    for (let size = MOST_AT_ONCE; at < rows.length; size = Math.max(1, size >> 1)) {
      while (rows.length - at >= size) {
        this.run(rows.slice(at, at + size))
        at += size
      }
    }
  }
}

/**
 * A statement that sets the values it writes of one row, found by a key (an UPDATE by id, an
 * upsert), run now or, under a group commit, held back as RowsInsert's rows are. Of the rows held
 * for one key only the last is written: a turn's twenty transfers between sixteen wallets write
 * each wallet's balances once.
 */
export class RowWrite implements RowsWriter {
  readonly table: string
  readonly #statement: Statement

  /** `sql` takes one row's values, the key among them at `keyAt`. */
  constructor(
    private readonly database: Database,
    sql: string,
    private readonly keyAt: number,
  ) {
    this.table = tableOf(sql)
    this.#statement = database.prepare(sql)
  }

  run(...values: SQLInputValue[]): void {
    if (!this.database.holdRows(this, [values])) this.#statement.run(...values)
  }

  write(rows: readonly (readonly SQLInputValue[])[]): void {
    const last = new Map<SQLInputValue, readonly SQLInputValue[]>()
    for (const row of rows) last.set(row[this.keyAt]!, row)
    for (const row of last.values()) this.#statement.run(...row)
  }
}
