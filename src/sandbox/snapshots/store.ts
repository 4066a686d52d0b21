import {mkdirSync, readdirSync, rmSync, statSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {SNAPSHOT_FORMAT, type Snapshot, type SnapshotScope} from '../../contract/snapshots.js'
import type {SandboxClock} from '../clock.js'
import type {FaultStore} from '../faults/injection.js'
import {ApiError} from '../http/api-error.js'
import {type Database, SCHEMA_VERSION, type Schema, type Table} from '../storage/database.js'
import {DatabaseSync} from '../storage/sqlite.js'
import type {PartnerRows} from '../tenancy/partner-rows.js'
import type {PartnerDirectory} from '../tenancy/partners.js'
import {
  extractBody,
  invalid,
  isSealedBy,
  type ReadHeader,
  readHeader,
  SNAPSHOT_APPLICATION_ID,
  type SnapshotHeader,
  sealSnapshotFile,
  temporaryBeside,
} from './file.js'
import {checkObjects, ownObjects} from './objects.js'
import {type SnapshotQuota, usageOf} from './quota.js'
import {rebuildRows} from './rebuild.js'
import {columnsOf, copyDataFile, mergeInto, refuseOthersKept, rowCount} from './swap.js'

/** What a snapshot reads, replaces and tells: the data file and what keeps a partner in memory. */
export interface SnapshotParts {
  database: Database
  partnerRows: PartnerRows
  partners: PartnerDirectory
  clock: SandboxClock
  faults: FaultStore
  /** Every table of the sandbox: what a snapshot file's rows are checked against and rebuilt with. */
  schemas: readonly Schema[]
  /** The key that seals the snapshots this sandbox writes: a file it sealed needs no rebuilding. */
  key: Buffer
  /** How much each partner may keep in snapshot files. */
  quota: SnapshotQuota
  /** What restored rows are checked against besides their rules: whether the sandbox listens beyond loopback. */
  settings: {exposed: boolean}
  /** Where named snapshots are kept: a folder per partner id. */
  dir: string
}

/**
 * Rows a sandbox in memory restores at most: it copies them in one transaction, which holds up the
 * requests meanwhile (on a data file, the file is made ready beside it while they are served).
 */
export const MEMORY_RESTORE_ROWS = 50_000

/**
 * What a restore leaves as it is, and why: the partner's credentials (its profiles and tokens keep
 * working) and its listen sessions (live connections, not state: a listener stays connected and
 * gets the events that come after the restore). docs/sandbox.md#snapshots.
 */
const KEPT_BY_RESTORE = new Set(['partners', 'webhook_listen_sessions'])

const SNAPSHOT_SUFFIX = '.snapshot'

/**
 * Named snapshots of partners (their rows and clock) and of the whole sandbox. One save or restore
 * runs at a time; each takes or puts back its rows in one synchronous step of the sandbox, so each
 * request is wholly before or wholly after it, and nobody sees a restore half done. On a data file,
 * a snapshot is SQLite's pages copied whole where it can be (swap.ts); in memory, and for a
 * partner beside others, its rows are copied one by one.
 */
export class SnapshotStore {
  #queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly parts: SnapshotParts) {
    this.#sweep()
  }

  /**
   * Remove what a save, a restore or an upload killed half-way left behind: hidden temporary files
   * in the snapshot folders and beside the data file. At start nothing is under way.
   */
  #sweep(): void {
    const {dir, database} = this.parts
    for (const partner of namesIn(dir)) removeHidden(join(dir, partner), '.')
    if (database.path !== ':memory:') removeHidden(dirname(database.path), `.${basename(database.path)}.`)
  }

  /** The file of the partner's snapshot `name` (which may not exist). */
  pathOf(partnerId: string, name: string): string {
    return join(this.#dirOf(partnerId), `${name}${SNAPSHOT_SUFFIX}`)
  }

  /** Make the partner's folder of snapshots, readable by its owner only. */
  ensureDir(partnerId: string): void {
    mkdirSync(this.#dirOf(partnerId), {recursive: true, mode: 0o700})
  }

  /** Save the partner's rows (or, for `all`, every partner's) as the snapshot `name`, replacing one of that name. */
  save(partnerId: string, name: string, scope: SnapshotScope, now: string): Promise<Snapshot> {
    return this.#oneAtATime(async () => {
      this.ensureDir(partnerId)
      const target = this.pathOf(partnerId, name)
      const admit = this.#admission(partnerId, name)
      const body = temporaryBeside(target)
      try {
        const header = {name, scope, partnerId, createdAt: now, schemaVersion: SCHEMA_VERSION}
        const {database, partnerRows, key} = this.parts
        const records = this.#wholeFile(partnerId, scope)
          ? await database.atRest(() => {
              copyDataFile(database, partnerRows.shared, body)
              return rowCount(database.db, partnerRows)
            })
          : this.#writeRows(body, partnerId, scope)
        const sealed = await sealSnapshotFile(target, body, {...header, records}, key, admit)
        return describe(sealed, statSync(target).size, name)
      } catch (err) {
        if (err instanceof ApiError) throw err
        const reason = (err as Error).message ?? String(err)
        throw new ApiError(
          'SNAPSHOT_NOT_SAVED',
          `The snapshot ${name} was not saved (${reason}): nothing was written, and an earlier snapshot of that name is as it was`,
          {reason},
        )
      } finally {
        removeDatabaseFile(body)
      }
    })
  }

  /**
   * Check that the partner may store `bytes` more as the snapshot `name` (replacing one of that
   * name), and how: refused as SNAPSHOT_QUOTA_EXCEEDED past its quota of files or bytes. What the
   * partner's folder already holds is counted first, so a file that would not fit is never stored.
   */
  #admission(partnerId: string, name: string): (bytes: number) => void {
    const {quota} = this.parts
    const used = usageOf(this.#dirOf(partnerId), `${name}${SNAPSHOT_SUFFIX}`)
    if (!used.replacing && used.files >= quota.files) throw quotaExceeded(quota, used, `a snapshot more`)
    return (bytes) => {
      if (used.bytes + bytes > quota.bytes) throw quotaExceeded(quota, used, `${bytes} bytes more`)
    }
  }

  /** Admission of an upload's next chunk: the bytes it brings, beside what the upload holds already. */
  admitUpload(partnerId: string, name: string, received: number, bytes: number): void {
    this.#admission(partnerId, name)(received + bytes)
  }

  /** The partner's snapshots, newest first; files that are not readable snapshots are left out. */
  list(partnerId: string): Snapshot[] {
    return namesIn(this.#dirOf(partnerId))
      .filter((n) => n.endsWith(SNAPSHOT_SUFFIX) && !n.startsWith('.'))
      .flatMap((n) => {
        try {
          const header = readHeader(join(this.#dirOf(partnerId), n), n)
          return [describe(header, header.fileBytes, n.slice(0, -SNAPSHOT_SUFFIX.length))]
        } catch {
          return []
        }
      })
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.name.localeCompare(b.name))
  }

  /** The partner's snapshot `name`, checked; NOT_FOUND when it has none of that name. */
  find(partnerId: string, name: string): {path: string; header: ReadHeader} {
    const path = this.pathOf(partnerId, name)
    try {
      statSync(path)
    } catch {
      throw new ApiError('NOT_FOUND', `No snapshot named ${name}`, {resource: 'snapshot', id: name})
    }
    return {path, header: readHeader(path, `snapshot ${name}`)}
  }

  delete(partnerId: string, name: string): void {
    this.find(partnerId, name)
    rmSync(this.pathOf(partnerId, name))
  }

  /**
   * Put back what the snapshot file at `path` holds, in one step: a partner snapshot into the
   * caller's partner (its records keep their ids), a whole-sandbox one (the operator's only) over
   * every partner, the snapshot's operator into the running one. A file refused leaves everything
   * as it was. The file's rows are made ready beside the data file first (`checkedRows`), while
   * the sandbox goes on serving; only the last step, the swap, runs between two groups of requests.
   */
  restore(callerId: string, path: string, what: string): Promise<{scope: SnapshotScope; records: number}> {
    return this.#oneAtATime(async () => {
      const header = readHeader(path, what)
      if (header.scope === 'all' && callerId !== this.parts.partners.operator) {
        throw new ApiError(
          'INSUFFICIENT_PERMISSIONS',
          "Only the sandbox's operator (the partner it was started with) restores a snapshot of the whole sandbox",
        )
      }
      const {database} = this.parts
      const onDisk = database.path !== ':memory:'
      if (!onDisk) this.ensureDir(callerId)
      // Beside the data file, so that it can be renamed over it.
      const beside = onDisk ? database.path : this.pathOf(callerId, 'restore')
      const scratch = [temporaryBeside(beside, '.db.tmp'), temporaryBeside(beside, '.db.tmp')] as const
      try {
        const rows = await checkedRows(path, header, scratch, {...this.parts, what})
        if (!onDisk && rows.records > MEMORY_RESTORE_ROWS) {
          throw invalid(
            what,
            `it holds ${rows.records} rows, more than a sandbox in memory restores (${MEMORY_RESTORE_ROWS}): start the sandbox on a data file (--data FILE)`,
          )
        }
        return await conflictsNamed(async () => {
          if (onDisk) await this.#swap(callerId, header, rows.file)
          else this.#attached(rows.file, () => this.#replace(callerId, header))
          return {scope: header.scope, records: rows.records}
        })
      } finally {
        for (const file of scratch) removeDatabaseFile(file)
      }
    })
  }

  /** Run `fn` after every save and restore asked for before it has ended. */
  #oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn)
    this.#queue = run.catch(() => undefined)
    return run
  }

  /** Whether a save copies the data file whole: it has one, and holds nobody's rows but the scope's. */
  #wholeFile(partnerId: string, scope: SnapshotScope): boolean {
    if (this.parts.database.path === ':memory:') return false
    const ids = [...this.parts.partners.ids()]
    return scope === 'all' || (ids.length === 1 && ids[0] === partnerId)
  }

  /** Restore by renaming the snapshot's file, made ready beside the data file, over it. */
  async #swap(callerId: string, header: SnapshotHeader, body: string): Promise<void> {
    const {database, partnerRows, partners} = this.parts
    const running = [...partners.ids()]
    let restored: string[] = []
    await database.replaceFile(body, () => {
      database.db.prepare('ATTACH DATABASE ? AS snap').run(body)
      try {
        restored = mergeInto(database.db, {
          rows: partnerRows,
          shared: partnerRows.shared,
          kept: KEPT_BY_RESTORE,
          scope: header.scope,
          from: header.partnerId,
          to: callerId,
          running,
        })
      } finally {
        database.db.exec('DETACH DATABASE snap')
      }
    })
    // A whole sandbox's restore takes away the partners made since it was saved.
    if (header.scope === 'all')
      for (const id of running) if (!restored.includes(id)) partnerRows.announceDeleted(id)
    this.#reload(restored)
  }

  /** What the restored partners keep in memory is read again, their faults on demand cleared. */
  #reload(ids: readonly string[]): void {
    const {partners, clock, faults} = this.parts
    for (const id of ids) {
      partners.reload(id)
      clock.reload(id)
      faults.clear(id)
    }
  }

  #dirOf(partnerId: string): string {
    return join(this.parts.dir, partnerId)
  }

  /**
   * Run `fn` with the SQLite file at `path` attached as `snap`. SQLite attaches only outside a
   * transaction: the group of requests already answered is committed first, and `fn`'s own writes
   * after it. Nothing else runs meanwhile (it is all synchronous), so no request sees half of it.
   */
  #attached<T>(path: string, fn: () => T): T {
    const {database} = this.parts
    database.flush()
    database.db.prepare('ATTACH DATABASE ? AS snap').run(path)
    try {
      database.db.exec('PRAGMA snap.journal_mode = OFF; PRAGMA snap.synchronous = OFF')
      return fn()
    } finally {
      // Committed (or, after a refusal, its savepoint rolled back) before SQLite lets go of the file.
      database.flush()
      database.db.exec('DETACH DATABASE snap')
    }
  }

  /** Copy the rows of the scope into a new SQLite file at `path`, with every table's shape; returns how many. */
  #writeRows(path: string, partnerId: string, scope: SnapshotScope): number {
    const source = this.parts.database.db
    const ddl = source
      .prepare("SELECT type, sql FROM main.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
      .all() as {type: string; sql: string}[]
    const out = new DatabaseSync(path)
    try {
      out.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF')
      out.exec(`PRAGMA application_id = ${SNAPSHOT_APPLICATION_ID}`)
      for (const {sql} of ddl.filter((d) => d.type === 'table')) out.exec(sql)
      out.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION))
    } finally {
      out.close()
    }
    const records = this.#attached(path, () => {
      source.exec('BEGIN')
      try {
        let count = 0
        for (const {table, where} of this.parts.partnerRows.selections()) {
          const columns = columnsOf(source, 'main', table.name).join(', ')
          const insert = source.prepare(
            `INSERT INTO snap.${table.name} (${columns}) SELECT ${columns} FROM main.${table.name}${scope === 'partner' ? ` WHERE ${where}` : ''}`,
          )
          count += Number((scope === 'partner' ? insert.run(partnerId) : insert.run()).changes)
        }
        source.exec('COMMIT')
        return count
      } catch (err) {
        source.exec('ROLLBACK')
        throw err
      }
    })
    const indexed = new DatabaseSync(path)
    try {
      for (const {sql} of ddl.filter((d) => d.type !== 'table')) indexed.exec(sql)
    } finally {
      indexed.close()
    }
    return records
  }

  /** Replace the partners' rows with the snapshot's, in one transaction (a sandbox in memory). */
  #replace(callerId: string, header: SnapshotHeader): void {
    const {database, partnerRows, partners} = this.parts
    // The snapshot's partner (for all: its operator) becomes the caller (for all: the running operator).
    const mapped = (id: string): string => (id === header.partnerId ? callerId : id)
    database.transaction(() => {
      const targets =
        header.scope === 'partner'
          ? [callerId]
          : (database.db.prepare('SELECT partner_id FROM snap.partners').all() as {partner_id: string}[]).map(
              (r) => mapped(r.partner_id),
            )
      if (header.scope === 'all') {
        // Partners the snapshot does not know go, whole, as a deleted partner does.
        for (const id of [...partners.ids()]) if (!targets.includes(id)) partnerRows.delete(id, 'all')
      }
      for (const id of targets) partnerRows.deleteKeeping(id, KEPT_BY_RESTORE)
      for (const {table} of partnerRows.selections()) {
        if (table.name === 'webhook_listen_sessions') continue
        if (table.name === 'partners' && header.scope === 'partner') continue
        copyTable(database.db, table, header.partnerId, callerId)
      }
      refuseOthersKept(database.db, 'main', partnerRows.tables, KEPT_BY_RESTORE, targets)
      this.#reload(targets)
    })
  }
}

/** Run a restore; a record another partner holds under the same id refuses it as SNAPSHOT_CONFLICT. */
async function conflictsNamed<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof Error && /constraint failed/i.test(err.message)) {
      throw new ApiError(
        'SNAPSHOT_CONFLICT',
        `Records of this snapshot are held by another partner of this sandbox (${err.message}): nothing was restored`,
      )
    }
    throw err
  }
}

/** Insert every row of `table` from the attached snapshot, its partner column mapped `from` → `to`; returns how many. */
function copyTable(db: DatabaseSync, table: Table, from: string, to: string): number {
  const present = new Set(columnsOf(db, 'snap', table.name))
  const shared = columnsOf(db, 'main', table.name).filter((c) => present.has(c))
  const partnerColumn = 'partnerColumn' in table.tie ? table.tie.partnerColumn : undefined
  const selected = shared.map((c) => (c === partnerColumn ? `CASE WHEN ${c} = ? THEN ? ELSE ${c} END` : c))
  // A partner the running sandbox has already keeps its own credentials (for all: the operator).
  const verb = table.name === 'partners' ? 'INSERT OR IGNORE' : 'INSERT'
  const insert = db.prepare(
    `${verb} INTO main.${table.name} (${shared.join(', ')}) SELECT ${selected.join(', ')} FROM snap.${table.name}`,
  )
  return Number((partnerColumn === undefined ? insert.run() : insert.run(from, to)).changes)
}

/**
 * The rows of the snapshot file at `path` as a SQLite file with the sandbox's own schema, checked,
 * in one of `scratch` (two new paths): its rows copied out and their checksum checked; then its
 * schema checked to hold nothing the sandbox does not create; then, unless this sandbox sealed it (it
 * wrote the file, and nobody changed a byte since), its rows rebuilt one by one into a new file and
 * checked as the API would have written them (rebuild.ts). A file of an older schema is
 * refused: its tables are not the sandbox's any more.
 */
export async function checkedRows(
  path: string,
  header: ReadHeader,
  scratch: readonly [string, string],
  parts: {schemas: readonly Schema[]; key: Buffer; settings: {exposed: boolean}; what: string},
): Promise<{file: string; records: number}> {
  const {what, schemas, settings} = parts
  if (header.schemaVersion < SCHEMA_VERSION) {
    throw invalid(
      what,
      `its rows are in data file schema ${header.schemaVersion}, from an older payctl: this one restores schema ${SCHEMA_VERSION}. Start a sandbox of this payctl on a data file that the older one restored it into, and save it again`,
    )
  }
  const [body, rebuilt] = scratch
  await extractBody(path, header, body, what)
  const found = checkObjects(body, ownObjects(schemas), what)
  if (found.exact && isSealedBy(header, parts.key)) return {file: body, records: header.records}
  try {
    const records = await rebuildRows({from: body, found, to: rebuilt, schemas, header, what, settings})
    return {file: rebuilt, records}
  } catch (err) {
    // Whatever else a file's rows make go wrong (a damaged page), it is the file's, not the sandbox's.
    if (err instanceof ApiError) throw err
    throw invalid(what, `its rows cannot be read (${(err as Error).message}); nothing was restored`)
  }
}

function quotaExceeded(quota: SnapshotQuota, used: {files: number; bytes: number}, asked: string): ApiError {
  return new ApiError(
    'SNAPSHOT_QUOTA_EXCEEDED',
    `This partner keeps ${used.files} snapshots of ${used.bytes} bytes, and may keep ${quota.files} of ${quota.bytes} bytes in all: ${asked} would pass that. Delete one (payctl sandbox snapshot delete NAME), or ask the operator for a larger quota (sandbox start --snapshot-quota)`,
    {quota: {files: quota.files, bytes: quota.bytes}, used: {files: used.files, bytes: used.bytes}},
  )
}

/** A snapshot as the routes answer it, under the name it is stored as (an upload may rename it). */
export function describe(header: SnapshotHeader & {format?: number}, bytes: number, name: string): Snapshot {
  return {
    name,
    scope: header.scope,
    partnerId: header.partnerId,
    createdAt: header.createdAt,
    records: header.records,
    bytes,
    format: header.format ?? SNAPSHOT_FORMAT,
    schemaVersion: header.schemaVersion,
    sha256: header.sha256,
  }
}

/** The names in a folder; none when it does not exist. */
function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder)
  } catch {
    return []
  }
}

/** Remove the files of `folder` whose names start with `prefix` (hidden ones: temporary files). */
function removeHidden(folder: string, prefix: string): void {
  for (const name of namesIn(folder)) {
    if (name.startsWith(prefix)) rmSync(join(folder, name), {force: true, recursive: true})
  }
}

/** Remove a temporary SQLite file and what SQLite keeps beside it. */
export function removeDatabaseFile(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(file, {force: true})
}
