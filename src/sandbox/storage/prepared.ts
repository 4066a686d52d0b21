import type {SQLInputValue, StatementResultingChanges, StatementSync} from 'node:sqlite'

/** What a statement needs of the database that prepared it (Database). */
export interface StatementSource {
  statementOf(sql: string, prepared: {statement: StatementSync; generation: number}): StatementSync
  prepareNow(sql: string): {statement: StatementSync; generation: number}
  noteStatement(readOnly: boolean): void
}

/** A statement as `Database.prepare` gives it: prepared again on its next use after the file is replaced. */
export class Prepared {
  readonly #database: StatementSource
  readonly #sql: string
  readonly #prepared: {statement: StatementSync; generation: number}

  /** A SELECT, which writes nothing (a WITH may end in an INSERT: counted as a write). */
  readonly #readOnly: boolean

  constructor(database: StatementSource, sql: string) {
    this.#database = database
    this.#sql = sql
    this.#readOnly = /^\s*SELECT\b/i.test(sql)
    this.#prepared = database.prepareNow(sql)
  }

  get(...params: SQLInputValue[]): unknown {
    this.#database.noteStatement(this.#readOnly)
    return this.#database.statementOf(this.#sql, this.#prepared).get(...params)
  }

  all(...params: SQLInputValue[]): unknown[] {
    this.#database.noteStatement(this.#readOnly)
    return this.#database.statementOf(this.#sql, this.#prepared).all(...params)
  }

  run(...params: SQLInputValue[]): StatementResultingChanges {
    this.#database.noteStatement(false)
    return this.#database.statementOf(this.#sql, this.#prepared).run(...params)
  }
}
