import type {SQLInputValue, StatementResultingChanges} from 'node:sqlite'
import type {Database, Statement} from './database.js'

/**
 * An INSERT of any number of rows in one statement (`INSERT INTO t (a, b) VALUES (?, ?), (?, ?)`),
 * prepared once for each count: a transfer writes its two records, its two ledger entries and its
 * three events each in one statement, which costs SQLite and node:sqlite less than one a row.
 */
export class RowsInsert {
  readonly #byCount: Statement[] = []

  /** `head` is the statement up to VALUES (`INSERT INTO t (a, b)`); each row has `columns` values. */
  constructor(
    private readonly database: Database,
    private readonly head: string,
    private readonly columns: number,
  ) {}

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
}
