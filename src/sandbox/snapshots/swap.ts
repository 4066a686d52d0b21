import {copyFileSync} from 'node:fs'
import type {SnapshotScope} from '../../contract/snapshots.js'
import type {Database, Table} from '../storage/database.js'
import {DatabaseSync} from '../storage/sqlite.js'
import type {PartnerRows} from '../tenancy/partner-rows.js'
import {invalid, SNAPSHOT_APPLICATION_ID} from './file.js'

/**
 * Snapshots as whole files, for a sandbox on a data file: SQLite's pages copied as they are rather
 * than row by row, which is what makes a save and a restore of 100,000 records take well under a
 * second (docs/performance.md#snapshots).
 *
 * - A save of the whole sandbox, or of a partner alone in it, is a copy of the data file, taken with
 *   its log copied back and nothing else running, then cleared of what is the sandbox's own (its keys
 *   and token revocations: a snapshot holds state, not the means to sign for another partner).
 * - A restore makes the snapshot's rows a data file beside the running one, puts into it what the
 *   restore keeps (every other partner's rows, the sandbox's keys and revocations, the partners'
 *   credentials, live listen sessions, the highest ids ever given), and renames it over the running
 *   file, in one step that no request straddles (Database.replaceFile).
 */

/** Copy the data file of `database`, at rest, to `target`, without the sandbox's own values. */
export function copyDataFile(database: Database, shared: readonly Table[], target: string): void {
  copyFileSync(database.path, target)
  const copy = new DatabaseSync(target)
  try {
    // Deleted bytes are overwritten, not left in free pages for anyone to read.
    copy.exec('PRAGMA secure_delete = ON')
    copy.exec('PRAGMA journal_mode = DELETE')
    copy.exec(`PRAGMA application_id = ${SNAPSHOT_APPLICATION_ID}`)
    for (const {name} of shared)
      copy.exec(`DELETE FROM ${name}${name === 'meta' ? " WHERE key <> 'schema_version'" : ''}`)
  } finally {
    copy.close()
  }
}

/** What a restore puts back into the file of a snapshot's rows before it replaces the data file. */
export interface Merge {
  rows: PartnerRows
  /** The tables of no one partner: they stay the running sandbox's. */
  shared: readonly Table[]
  /** Tables whose rows of the restored partners stay the running sandbox's (credentials, live sessions). */
  kept: ReadonlySet<string>
  scope: SnapshotScope
  /** The snapshot's partner, and the one it is restored into. */
  from: string
  to: string
  /** The partners of the running sandbox. */
  running: readonly string[]
}

/**
 * On `db`, with the snapshot's file attached as `snap`: make it the data file the restore leaves.
 * Returns the partners it restores (their rows are the snapshot's). A record another partner holds
 * under the same id fails with SQLite's constraint error, and nothing is changed.
 */
export function mergeInto(db: DatabaseSync, m: Merge): string[] {
  db.exec('BEGIN')
  try {
    if (m.from !== m.to) renamePartner(db, m)
    const restored =
      m.scope === 'partner'
        ? [m.to]
        : (db.prepare('SELECT partner_id FROM snap.partners').all() as {partner_id: string}[]).map(
            (r) => r.partner_id,
          )
    // The partners' credentials: every running partner's for a partner's restore; for the whole
    // sandbox, the running credentials of the partners the snapshot holds.
    if (m.scope === 'partner') db.exec('DELETE FROM snap.partners')
    copy(
      db,
      'partners',
      m.scope === 'partner' ? '' : 'WHERE partner_id IN (SELECT partner_id FROM snap.partners)',
      [],
      'OR REPLACE',
    )
    for (const {table, where} of m.rows.selections()) {
      if (table.name === 'partners' || !m.kept.has(table.name)) continue
      for (const id of restored) {
        db.prepare(`DELETE FROM snap.${table.name} WHERE ${where}`).run(id)
        copy(db, table.name, `WHERE ${where}`, [id])
      }
    }
    if (m.scope === 'partner') {
      for (const other of m.running.filter((id) => id !== m.to)) {
        for (const {table, where} of m.rows.selections())
          if (table.name !== 'partners') copy(db, table.name, `WHERE ${where}`, [other])
      }
    }
    for (const table of m.shared) {
      db.exec(`DELETE FROM snap.${table.name}`)
      copy(db, table.name, '', [])
    }
    refuseOthersKept(db, 'snap', m.rows.tables, m.kept, restored)
    keepHighestIds(db)
    db.exec('COMMIT')
    return restored
  } catch (err) {
    db.exec('ROLLBACK')
    throw err
  }
}

/**
 * Refuse a restored row that names a row the restore keeps as it runs (a listen session) of another
 * partner: the file was checked to name its own partner's, but those rows of the file give way to the
 * running ones, and a delivery to another partner's session would be pushed to that partner's listener.
 */
export function refuseOthersKept(
  db: DatabaseSync,
  schema: 'snap' | 'main',
  tables: readonly Table[],
  kept: ReadonlySet<string>,
  restored: readonly string[],
): void {
  const partnerColumn = (t: Table | undefined) =>
    t !== undefined && 'partnerColumn' in t.tie ? t.tie.partnerColumn : undefined
  const ids = restored.map(() => '?').join(', ')
  for (const table of tables) {
    const own = partnerColumn(table)
    for (const [name, rule] of Object.entries(table.columns ?? {})) {
      if (rule.kind !== 'ref' || !kept.has(rule.table) || own === undefined) continue
      const theirs = partnerColumn(tables.find((t) => t.name === rule.table))
      if (theirs === undefined) continue
      const found = db
        .prepare(
          `SELECT r.${name} AS id FROM ${schema}.${table.name} AS r JOIN ${schema}.${rule.table} AS k ON k.${rule.key} = r.${name}
           WHERE r.${own} IN (${ids}) AND k.${theirs} <> r.${own} LIMIT 1`,
        )
        .get(...restored) as {id: string} | undefined
      if (found !== undefined)
        throw invalid(
          'the snapshot',
          `its ${table.name} name ${found.id}, another partner's ${rule.table} row; nothing was restored`,
        )
    }
  }
}

/** Insert the rows of main's `table` that `where` selects into the snapshot's, by column name. */
function copy(db: DatabaseSync, table: string, where: string, params: string[], verb = ''): void {
  const present = new Set(columnsOf(db, 'snap', table))
  const columns = columnsOf(db, 'main', table)
    .filter((c) => present.has(c))
    .join(', ')
  db.prepare(
    `INSERT ${verb} INTO snap.${table} (${columns}) SELECT ${columns} FROM main.${table} ${where}`,
  ).run(...params)
}

/** The snapshot's partner becomes the one it is restored into, in every column that names it. */
function renamePartner(db: DatabaseSync, m: Merge): void {
  for (const table of m.rows.tables) {
    if (!('partnerColumn' in table.tie)) continue
    const column = table.tie.partnerColumn
    db.prepare(`UPDATE snap.${table.name} SET ${column} = ? WHERE ${column} = ?`).run(m.to, m.from)
  }
}

/** Ids given by AUTOINCREMENT never go back: each table's highest, of the running file or the snapshot's. */
function keepHighestIds(db: DatabaseSync): void {
  const running = db.prepare('SELECT name, seq FROM main.sqlite_sequence').all() as {
    name: string
    seq: number
  }[]
  const raise = db.prepare('UPDATE snap.sqlite_sequence SET seq = max(seq, ?) WHERE name = ?')
  const add = db.prepare('INSERT INTO snap.sqlite_sequence (name, seq) VALUES (?, ?)')
  for (const {name, seq} of running) if (raise.run(seq, name).changes === 0) add.run(name, seq)
}

export function columnsOf(db: DatabaseSync, schema: 'main' | 'snap', table: string): string[] {
  return (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as {name: string}[]).map((c) => c.name)
}

/** Rows in the tables of partners' rows of the file `db` has open as `schema`, for the scope's partner. */
export function rowCount(db: DatabaseSync, rows: PartnerRows): number {
  let count = 0
  for (const table of rows.tables)
    count += (db.prepare(`SELECT count(*) AS n FROM ${table.name}`).get() as {n: number}).n
  return count
}
