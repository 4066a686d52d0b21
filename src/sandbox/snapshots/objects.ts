import {Database, type Schema} from '../storage/database.js'
import {DatabaseSync} from '../storage/sqlite.js'
import {invalid} from './file.js'

/**
 * What the sandbox's own data file is made of, and the check that a snapshot's SQLite file holds
 * nothing else. A snapshot file is somebody's upload: whatever its schema says (a trigger that
 * fires on the shared file, a view that never ends, a virtual table, a column or an index of its
 * own) is never run, never adopted: it is refused whole (docs/sandbox.md#what-a-snapshot-file-may-hold).
 */

interface OwnTable {
  /** Each column's declared type and place in the primary key, as `PRAGMA table_xinfo` gives them. */
  columns: Map<string, string>
  withoutRowid: boolean
}

/** Every table and index a data file of this payctl has. */
export interface OwnObjects {
  tables: Map<string, OwnTable>
  /** Each index: its table, and its definition (the SQL that made it, or for an automatic one its columns). */
  indexes: Map<string, {table: string; definition: string}>
}

const built = new WeakMap<readonly Schema[], OwnObjects>()

/** The objects of a new data file with `schemas`' tables, made once in memory. */
export function ownObjects(schemas: readonly Schema[]): OwnObjects {
  let own = built.get(schemas)
  if (own === undefined) {
    const reference = new Database(':memory:', schemas)
    try {
      own = objectsOf(reference.db).own
    } finally {
      reference.close()
    }
    built.set(schemas, own)
  }
  return own
}

/** Whether the file holds exactly the sandbox's tables, columns and indexes (none missing either). */
export interface ObjectsFound {
  exact: boolean
  /** The file's columns of each table (a subset of the sandbox's). */
  columns: Map<string, string[]>
}

/**
 * Check the schema of the SQLite file at `path` against the sandbox's own: refused as
 * SNAPSHOT_INVALID, naming what it found, when it holds any trigger, view, virtual table, table,
 * column or index that the sandbox does not create. Read from the file's schema table alone; nothing
 * of the file runs.
 */
export function checkObjects(path: string, own: OwnObjects, what: string): ObjectsFound {
  let db: DatabaseSync | undefined
  let found: ReturnType<typeof objectsOf>
  try {
    db = new DatabaseSync(path, {readOnly: true, defensive: true})
    found = objectsOf(db)
  } catch (err) {
    throw invalid(what, `its rows cannot be read as a SQLite file (${(err as Error).message})`)
  } finally {
    db?.close()
  }
  const problems = [...found.foreign]
  for (const [name, table] of found.own.tables) {
    const ours = own.tables.get(name)
    if (ours === undefined) {
      problems.push(`a table ${name}`)
      continue
    }
    if (ours.withoutRowid !== table.withoutRowid) problems.push(`a table ${name} of another kind`)
    for (const [column, shape] of table.columns) {
      const expected = ours.columns.get(column)
      if (expected === undefined) problems.push(`a column ${name}.${column}`)
      else if (expected !== shape) problems.push(`a column ${name}.${column} of another type or key`)
    }
  }
  for (const [name, index] of found.own.indexes) {
    const ours = own.indexes.get(name)
    if (ours === undefined) problems.push(`an index ${name} on ${index.table}`)
    else if (ours.table !== index.table || ours.definition !== index.definition)
      problems.push(`an index ${name} defined otherwise`)
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join(', ')
    const more = problems.length > 5 ? ` and ${problems.length - 5} more` : ''
    throw invalid(what, `it holds what the sandbox does not create: ${shown}${more}; nothing was restored`)
  }
  const exact =
    found.own.tables.size === own.tables.size &&
    found.own.indexes.size === own.indexes.size &&
    [...own.tables].every(([name, t]) => found.own.tables.get(name)?.columns.size === t.columns.size)
  return {
    exact,
    columns: new Map([...found.own.tables].map(([name, t]) => [name, [...t.columns.keys()]])),
  }
}

interface SchemaRow {
  type: string
  name: string
  tbl_name: string
  sql: string | null
}

/** The tables and indexes of `db`'s main schema, and a description of every other object it holds. */
function objectsOf(db: DatabaseSync): {own: OwnObjects; foreign: string[]} {
  const rows = db
    .prepare('SELECT type, name, tbl_name, sql FROM main.sqlite_schema')
    .all() as unknown as SchemaRow[]
  const own: OwnObjects = {tables: new Map(), indexes: new Map()}
  const foreign: string[] = []
  for (const row of rows) {
    const name = row.name.toLowerCase()
    const table = row.tbl_name.toLowerCase()
    const sql = row.sql ?? ''
    if (row.type === 'table' && /^\s*CREATE\s+VIRTUAL\b/i.test(sql)) foreign.push(`a virtual table ${name}`)
    else if (row.type === 'table') own.tables.set(name, tableOf(db, row.name, sql))
    else if (row.type === 'index') own.indexes.set(name, {table, definition: indexDefinition(db, row)})
    else foreign.push(`a ${row.type} ${name}${row.type === 'trigger' ? ` on ${table}` : ''}`)
  }
  return {own, foreign}
}

function tableOf(db: DatabaseSync, name: string, sql: string): OwnTable {
  const columns = db.prepare('SELECT name, type, pk, hidden FROM pragma_table_xinfo(?)').all(name) as {
    name: string
    type: string
    pk: number
    hidden: number
  }[]
  return {
    // A generated or hidden column is never one of the sandbox's: its shape says so.
    columns: new Map(
      columns.map((c) => [c.name.toLowerCase(), `${c.type.toUpperCase()} pk${c.pk} h${c.hidden}`]),
    ),
    withoutRowid: /\bWITHOUT\s+ROWID\s*;?\s*$/i.test(sql),
  }
}

/** An index as its SQL states it (spaces evened out), or for an automatic one, the columns it keys. */
function indexDefinition(db: DatabaseSync, row: SchemaRow): string {
  if (row.sql !== null) return row.sql.replace(/\s+/g, ' ').trim()
  const keys = db.prepare('SELECT name, "desc", coll, "key" FROM pragma_index_xinfo(?)').all(row.name)
  return JSON.stringify(keys)
}
