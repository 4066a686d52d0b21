import type {SQLInputValue, SQLOutputValue, StatementResultingChanges, StatementSync} from 'node:sqlite'

/**
 * A row type a statement may be given: every column one of the values SQLite answers (no booleans,
 * no undefined; a flag is 0 or 1, an absent value null).
 */
export type Columns<Row> = {[K in keyof Row]-?: SQLOutputValue}

/**
 * A prepared statement whose rows are `Row`, as `Database.prepare` gives it. Parameters are
 * positional, as in every statement of the sandbox.
 */
export interface Statement<Row extends Columns<Row> = never> {
  get(...params: SQLInputValue[]): Row | undefined
  all(...params: SQLInputValue[]): Row[]
  run(...params: SQLInputValue[]): StatementResultingChanges
}

export interface PrepareOptions {
  /**
   * Its caller looks among the rows held back for its table first (Database.held): they need not be
   * written before it runs.
   */
  heldRowsReadFirst?: boolean
}

/** What a statement needs of the database that prepared it (Database). */
export interface StatementSource {
  statementOf(sql: string, prepared: {statement: StatementSync; generation: number}): StatementSync
  prepareNow(sql: string): {statement: StatementSync; generation: number}
  noteStatement(readOnly: boolean, words: ReadonlySet<string>): void
}

/** A statement as `Database.prepare` gives it: prepared again on its next use after the file is replaced. */
export class Prepared {
  readonly #database: StatementSource
  readonly #sql: string
  readonly #prepared: {statement: StatementSync; generation: number}

  /** A SELECT, which writes nothing (a WITH may end in an INSERT: counted as a write). */
  readonly #readOnly: boolean
  /** The words of its SQL, lower case: the tables it names among them (rows held back for one are written first). */
  readonly #words: ReadonlySet<string>

  constructor(database: StatementSource, sql: string, options: PrepareOptions = {}) {
    this.#database = database
    this.#sql = sql
    this.#readOnly = /^\s*SELECT\b/i.test(sql)
    this.#words = options.heldRowsReadFirst === true ? new Set() : new Set(sql.toLowerCase().match(/\w+/g))
    this.#prepared = database.prepareNow(sql)
  }

  get(...params: SQLInputValue[]): unknown {
    this.#database.noteStatement(this.#readOnly, this.#words)
    return this.#database.statementOf(this.#sql, this.#prepared).get(...params)
  }

  all(...params: SQLInputValue[]): unknown[] {
    this.#database.noteStatement(this.#readOnly, this.#words)
    return this.#database.statementOf(this.#sql, this.#prepared).all(...params)
  }

  run(...params: SQLInputValue[]): StatementResultingChanges {
    this.#database.noteStatement(false, this.#words)
    return this.#database.statementOf(this.#sql, this.#prepared).run(...params)
  }
}
