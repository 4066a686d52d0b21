import type {SQLOutputValue} from 'node:sqlite'
import type {Database, Schema, Statement, Table} from '../storage/database.js'

type Row = Record<string, SQLOutputValue>

/** One table's rows of a partner: a condition with the partner id as its one parameter. */
interface Selection {
  table: Table
  where: string
  /** How many parents away the partner column is: children are deleted before their parents. */
  depth: number
}

interface Statements {
  table: Table
  where: string
  select: Statement<Row>
  delete: Statement
}

const NAME = /^[a-z_][a-z0-9_]*$/

/**
 * Every row of one partner, across the data file, found from the schemas' ties alone: a table
 * either names the partner in a column or belongs to a parent row that does. Reset, and whatever
 * else deletes, copies or restores one partner's data, needs no code of any feature's.
 */
export class PartnerRows {
  /** Children before their parents. */
  readonly #tables: Statements[]
  /** The tables of no one partner (the data file's keys, token revocations). */
  readonly shared: readonly Table[]
  readonly #listeners: ((partnerId: string, which: 'all' | 'records') => void)[] = []

  constructor(
    private readonly database: Database,
    schemas: readonly Schema[],
  ) {
    const tables = new Map(schemas.flatMap((s) => s.tables ?? []).map((t) => [t.name, t]))
    this.shared = [...tables.values()].filter((t) => 'shared' in t.tie)
    this.#tables = [...tables.values()]
      .flatMap((table) => selectionOf(table, tables, []) ?? [])
      .sort((a, b) => b.depth - a.depth)
      .map(({table, where}) => ({
        table,
        where,
        select: database.prepare<Row>(`SELECT * FROM ${table.name} WHERE ${where}`),
        delete: database.prepare(`DELETE FROM ${table.name} WHERE ${where}`),
      }))
  }

  /** The tables that hold partners' rows, children before their parents. */
  get tables(): readonly Table[] {
    return this.#tables.map((t) => t.table)
  }

  /** The partner's rows, by table, parents first (the tables shared by every partner have none). */
  rowsOf(partnerId: string): Map<string, Row[]> {
    return new Map([...this.#tables].reverse().map((t) => [t.table.name, t.select.all(partnerId)]))
  }

  /**
   * Delete the partner's rows, in one transaction: all of them, or only its records (what
   * POST /_sandbox/reset deletes), keeping the tables marked `keptByReset`.
   */
  delete(partnerId: string, which: 'all' | 'records'): void {
    this.database.transaction(() => {
      for (const t of this.#tables) {
        if (which === 'records' && t.table.keptByReset !== undefined) continue
        t.delete.run(partnerId)
      }
      this.database.forgetHeld()
      for (const listener of this.#listeners) listener(partnerId, which)
    })
  }

  /**
   * Each table of partners' rows with the condition (the partner id its one parameter) that selects
   * one partner's, parents first: what a snapshot copies.
   */
  selections(): {table: Table; where: string}[] {
    return [...this.#tables].reverse().map(({table, where}) => ({table, where}))
  }

  /**
   * Delete the partner's rows but those of the tables named in `keep`, telling no listener: the
   * partner stays, and whoever calls this (a restore) puts its rows back in the same transaction.
   */
  deleteKeeping(partnerId: string, keep: ReadonlySet<string>): void {
    this.database.transaction(() => {
      for (const t of this.#tables) if (!keep.has(t.table.name)) t.delete.run(partnerId)
      this.database.forgetHeld()
    })
  }

  /** Tell the listeners the partner's rows are gone (a restore of the whole sandbox took them away). */
  announceDeleted(partnerId: string): void {
    for (const listener of this.#listeners) listener(partnerId, 'all')
  }

  /**
   * Call `listener` whenever a partner's rows are deleted, in the same transaction: what keeps a
   * partner's state in memory (its clock, its credentials, its listeners' sockets) lets go of it.
   */
  afterDelete(listener: (partnerId: string, which: 'all' | 'records') => void): void {
    this.#listeners.push(listener)
  }
}

/** How to select a partner's rows of `table`, following its parents; undefined for a shared table. */
function selectionOf(
  table: Table,
  tables: ReadonlyMap<string, Table>,
  path: string[],
): Selection | undefined {
  const {tie} = table
  if ('shared' in tie) return undefined
  if (path.includes(table.name))
    throw new Error(`tables tied in a circle: ${[...path, table.name].join(' → ')}`)
  for (const name of [table.name, ...Object.values(tie)]) {
    if (!NAME.test(name)) throw new Error(`${table.name}: ${name} is not a table or column name`)
  }
  if ('partnerColumn' in tie) return {table, where: `${tie.partnerColumn} = ?`, depth: 0}
  const parent = tables.get(tie.parent)
  const above = parent === undefined ? undefined : selectionOf(parent, tables, [...path, table.name])
  if (above === undefined)
    throw new Error(`${table.name} is tied to ${tie.parent}, which holds no partner's rows`)
  return {
    table,
    where: `${tie.column} IN (SELECT ${tie.key} FROM ${tie.parent} WHERE ${above.where})`,
    depth: above.depth + 1,
  }
}
