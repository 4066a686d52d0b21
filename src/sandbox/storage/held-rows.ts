import type {SQLInputValue} from 'node:sqlite'

/** What writes held rows into one table: an INSERT of any number of them (RowsInsert), an UPDATE by key (RowWrite). */
export interface RowsWriter {
  readonly table: string
  write(rows: readonly (readonly SQLInputValue[])[]): void
}

/** A row held back: the INSERT that writes it, its values, and its place among the rows held. */
export interface HeldRow {
  serial: number
  insert: RowsWriter
  values: readonly SQLInputValue[]
}

/**
 * Where the held rows stood when a savepoint began: the number of the next row then, and the rows
 * held before it that were written since (inside it: a rollback to it holds them again).
 */
export interface HeldMark {
  held: number
  written: HeldRow[]
}

/**
 * Rows inserted during a group commit and held back, to be written together, several to a
 * statement, before the group commits (Database.holdRows): a turn's twenty transfers write their
 * forty records in two statements instead of twenty. Each row is numbered as it is held, so that
 * a savepoint knows which rows came before it and which it must drop when it rolls back.
 */
export class HeldRows {
  #rows: HeldRow[] = []
  #next = 0
  /** The tables with rows held, and how many each. */
  readonly #tables = new Map<string, number>()

  get size(): number {
    return this.#rows.length
  }

  /** A savepoint's mark, as it begins. */
  mark(): HeldMark {
    return {held: this.#next, written: []}
  }

  /** How many rows of `table` are held. */
  count(table: string): number {
    return this.#tables.get(table) ?? 0
  }

  hold(insert: RowsWriter, rows: readonly (readonly SQLInputValue[])[]): void {
    for (const values of rows) this.#rows.push({serial: this.#next++, insert, values})
    this.#tables.set(insert.table, this.count(insert.table) + rows.length)
  }

  /** The values of the newest row held for `insert` that `match` accepts. */
  latest(
    insert: RowsWriter,
    match: (values: readonly SQLInputValue[]) => boolean,
  ): readonly SQLInputValue[] | undefined {
    for (let i = this.#rows.length - 1; i >= 0; i--) {
      const row = this.#rows[i]!
      if (row.insert === insert && match(row.values)) return row.values
    }
    return undefined
  }

  /** Whether a statement that names `words` reads or writes a table with rows held. */
  touchedBy(words: ReadonlySet<string>): boolean {
    for (const table of this.#tables.keys()) if (words.has(table)) return true
    return false
  }

  /**
   * The rows held of `tables` (all, if undefined), in the order held, no longer held: to be written
   * inside the savepoints of `open`, each of which notes those held before it began.
   */
  take(open: readonly HeldMark[], tables?: ReadonlySet<string>): HeldRow[] {
    let rows = this.#rows
    this.#rows = []
    if (tables === undefined) this.#tables.clear()
    else {
      const taken: HeldRow[] = []
      for (const row of rows) (tables.has(row.insert.table) ? taken : this.#rows).push(row)
      for (const table of tables) this.#tables.delete(table)
      rows = taken
    }
    for (const mark of open) for (const row of rows) if (row.serial < mark.held) mark.written.push(row)
    return rows
  }

  /**
   * What was held at `mark` (a savepoint rolled back to): the rows held since are dropped, and
   * those held before but written since (their writes undone) are held again, so no longer written
   * inside the savepoints of `outer`, which enclose it.
   */
  undoTo(mark: HeldMark, outer: readonly HeldMark[]): void {
    const kept = this.#rows.filter((row) => row.serial < mark.held)
    const {written} = mark
    mark.written = []
    if (written.length > 0) {
      const again = new Set(written)
      for (const enclosing of outer) enclosing.written = enclosing.written.filter((row) => !again.has(row))
    }
    const rows = written.length === 0 ? kept : [...written, ...kept].sort((a, b) => a.serial - b.serial)
    this.#rows = []
    this.#tables.clear()
    for (const row of rows) {
      this.#rows.push(row)
      this.#tables.set(row.insert.table, this.count(row.insert.table) + 1)
    }
  }
}

/** Write `rows` in the order held: each table's rows in as few statements as `write` makes of them. */
export function writeRows(rows: readonly HeldRow[]): void {
  const byInsert = new Map<RowsWriter, SQLInputValue[][]>()
  for (const row of rows) {
    const values = byInsert.get(row.insert)
    if (values === undefined) byInsert.set(row.insert, [row.values as SQLInputValue[]])
    else values.push(row.values as SQLInputValue[])
  }
  for (const [insert, values] of byInsert) insert.write(values)
}
