import type {SQLOutputValue, StatementSync} from 'node:sqlite'
import {setImmediate as nextTurn} from 'node:timers/promises'
import {pathToFileURL} from 'node:url'
import {type ColumnRule, conditionOf, describeRule} from '../storage/column-rules.js'
import {Database, type Schema, type Table} from '../storage/database.js'
import {DatabaseSync} from '../storage/sqlite.js'
import {invalid, type SnapshotHeader} from './file.js'
import type {ObjectsFound} from './objects.js'

/**
 * A snapshot file that this sandbox did not seal is rebuilt before anything of it is restored: its
 * rows are read from the tables and columns the sandbox knows, one slice at a time, into a new file
 * made with the sandbox's own schema, and every row is checked there as the API would have written
 * it: its partner is the snapshot's, every record it names is one of that partner's in the same
 * file, each value has the shape its column's rule gives, and each wallet's balances are what its
 * ledger entries add up to. Anything else refuses the whole file as SNAPSHOT_INVALID, naming it.
 *
 * The work goes a slice at a time, and the requests the sandbox serves meanwhile run between two
 * slices: a file of any size, or made to be slow, holds them up for one slice at most.
 */

/** Rows a slice reads or checks: a few milliseconds of work. */
const SLICE_ROWS = 1000

/** A row's place in its table: the values of its primary key. */
type Key = SQLOutputValue[]

interface TablePlan {
  table: Table
  /** The columns copied: the sandbox's that the file has. */
  columns: string[]
  /** The columns a slice is ordered by. */
  key: string[]
  /** Where each slice ends, as copied: what the checks go through again. */
  bounds: Key[]
}

export interface Rebuild {
  /** The snapshot file's rows (its SQLite part), checked to hold only the sandbox's tables and columns. */
  from: string
  found: ObjectsFound
  /** Where the rebuilt file goes: a new file. */
  to: string
  schemas: readonly Schema[]
  header: SnapshotHeader
  /** Names the file in a refusal. */
  what: string
  /** The sandbox's settings that rules in code read (Table.verify): whether it listens beyond loopback. */
  settings: {exposed: boolean}
}

/** Rebuild the rows of `r.from` into the new file `r.to`, checking each; returns how many. */
export async function rebuildRows(r: Rebuild): Promise<number> {
  // The new file gets the sandbox's tables and indexes, made by the sandbox's own SQL.
  new Database(r.to, r.schemas).close()
  const db = new DatabaseSync(r.to, {defensive: true})
  try {
    db.exec(
      'PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA trusted_schema = OFF; PRAGMA cache_size = -32768',
    )
    db.prepare('ATTACH DATABASE ? AS snap').run(`${pathToFileURL(r.from).href}?mode=ro`)
    const tables = r.schemas.flatMap((s) => s.tables ?? []).filter((t) => !('shared' in t.tie))
    const plans: TablePlan[] = []
    let rows = 0
    db.exec('BEGIN')
    for (const table of tables) {
      const columns = r.found.columns.get(table.name)
      if (columns === undefined) continue
      const plan: TablePlan = {table, columns, key: keyOf(db, table.name), bounds: []}
      rows += await copy(db, plan, r.what)
      plans.push(plan)
    }
    db.exec('COMMIT')
    db.exec('DETACH DATABASE snap')
    const partners = partnersOf(db, r.header)
    for (const plan of plans) await check(db, plan, tables, partners, r)
    await checkLedger(db, r.what)
    return rows
  } finally {
    db.close()
  }
}

/**
 * The columns a table's rows are ordered and sliced by: its primary key (a row number, an INTEGER
 * PRIMARY KEY, is copied as it is), which every table of the sandbox has.
 */
function keyOf(db: DatabaseSync, table: string): string[] {
  const pk = db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').all(table) as {
    name: string
  }[]
  if (pk.length === 0) throw new Error(`${table} has no primary key to copy its rows in order by`)
  return pk.map((c) => c.name)
}

/**
 * A statement whose rows are arrays of their columns' values (a key, as a slice's bound), integers
 * read as BigInt: a row number past 2^53 is read, and refused by its rule, rather than failing the read.
 */
function arrays(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true)
  statement.setReadBigInts(true)
  return statement
}

/** `(k1, k2) > (?, ?)`, and the like: where a slice starts or ends. */
const after = (key: string[], alias = '') =>
  `(${key.map((k) => `${alias}${k}`).join(', ')}) > (${key.map(() => '?').join(', ')})`
const upTo = (key: string[], alias = '') =>
  `(${key.map((k) => `${alias}${k}`).join(', ')}) <= (${key.map(() => '?').join(', ')})`

/**
 * Copy a table's rows from the file, a slice at a time in the order of its key, recording where each
 * slice ends; returns how many. A row the key cannot order (a key that is NULL) would be left behind:
 * the file is refused instead.
 */
async function copy(db: DatabaseSync, plan: TablePlan, what: string): Promise<number> {
  const {table, columns, key} = plan
  const list = columns.join(', ')
  const order = key.join(', ')
  const slice = (from: boolean) => {
    const statement = db.prepare(
      `INSERT INTO main.${table.name} (${list}) SELECT ${list} FROM snap.${table.name}${from ? ` WHERE ${after(key)}` : ''} ORDER BY ${order} LIMIT ${SLICE_ROWS}`,
    )
    // Its last row number is read as a BigInt too: it may be past 2^53 (its rule refuses it).
    statement.setReadBigInts(true)
    return statement
  }
  const [first, next] = [slice(false), slice(true)]
  const last = arrays(
    db.prepare(
      `SELECT ${order} FROM main.${table.name} ORDER BY ${key.map((k) => `${k} DESC`).join(', ')} LIMIT 1`,
    ),
  )
  let count = 0
  try {
    for (let from: Key | undefined; ; ) {
      const copied = Number((from === undefined ? first.run() : next.run(...from)).changes)
      count += copied
      if (copied < SLICE_ROWS) break
      from = last.get() as unknown as Key
      plan.bounds.push(from)
      await nextTurn()
    }
  } catch (err) {
    throw invalid(what, `its ${table.name} rows break the sandbox's rules (${(err as Error).message})`)
  }
  const {n} = db.prepare(`SELECT count(*) AS n FROM snap.${table.name}`).get() as {n: number}
  if (n !== count)
    throw invalid(what, `${n - count} of its ${table.name} rows have no key; nothing was restored`)
  return count
}

/** Who the rows may belong to: the snapshot's partner, or for a whole sandbox's, the partners it holds. */
function partnersOf(db: DatabaseSync, header: SnapshotHeader): string[] {
  if (header.scope === 'partner') return [header.partnerId]
  return (db.prepare('SELECT partner_id FROM main.partners').all() as {partner_id: string}[]).map(
    (r) => r.partner_id,
  )
}

/** The SQL expression of the partner a row of `table` (as `alias`) belongs to, through its parents. */
function partnerOf(table: Table, tables: readonly Table[], alias: string): string {
  const {tie} = table
  if ('partnerColumn' in tie) return `${alias}.${tie.partnerColumn}`
  if ('shared' in tie) throw new Error(`${table.name} is no partner's`)
  const parent = tables.find((t) => t.name === tie.parent)
  if (parent === undefined) throw new Error(`${table.name}'s parent ${tie.parent} is no table`)
  const p = `${alias}_p`
  return `(SELECT ${partnerOf(parent, tables, p)} FROM main.${parent.name} AS ${p} WHERE ${p}.${tie.key} = ${alias}.${tie.column})`
}

interface Condition {
  what: string
  sql: string
}

/** Every condition a row of the table must meet: its partner's, each column's, then the table's own. */
function conditionsOf(table: Table, tables: readonly Table[], partners: readonly string[]): Condition[] {
  const list = partners.map((p) => `'${p.replaceAll("'", "''")}'`).join(', ')
  const owner = partnerOf(table, tables, 'r')
  const conditions: Condition[] = [
    {
      what:
        'partnerColumn' in table.tie
          ? `its ${table.tie.partnerColumn} is not the snapshot's partner`
          : `it belongs to no ${'parent' in table.tie ? table.tie.parent : ''} row of the snapshot's partner`,
      sql: `${owner} IN (${list})`,
    },
  ]
  for (const [name, rule] of Object.entries(table.columns ?? {})) {
    conditions.push({what: `its ${name} is not ${describeRule(rule)}`, sql: conditionOf(rule, `r.${name}`)})
    if (rule.kind === 'ref')
      conditions.push(refCondition(rule, name, tables, partners.length > 1 ? owner : undefined))
  }
  conditions.push(...(table.checks ?? []))
  // A condition that cannot be told (a NULL: a parent that is not there) is one not met.
  return conditions.map((c) => ({what: c.what, sql: `coalesce((${c.sql}), 0)`}))
}

/**
 * The record a reference names is in the file, and its partner's is the referring row's (`owner`: the
 * SQL of it; undefined when the file holds one partner's rows, each checked to be that partner's).
 */
function refCondition(
  rule: Extract<ColumnRule, {kind: 'ref'}>,
  name: string,
  tables: readonly Table[],
  owner: string | undefined,
): Condition {
  const target = tables.find((t) => t.name === rule.table)
  if (target === undefined) throw new Error(`a reference to ${rule.table}, which is no partner's table`)
  const same = owner === undefined ? '' : ` AND ${partnerOf(target, tables, 't')} = ${owner}`
  return {
    what: `its ${name} names no ${rule.table} row of the same partner in the file`,
    sql: `(r.${name} IS NULL OR EXISTS (SELECT 1 FROM main.${rule.table} AS t WHERE t.${rule.key} = r.${name}${same}))`,
  }
}

/**
 * A query of the rows of one slice of a table (those between two of its bounds, `where` given as the
 * condition), prepared once for each kind of slice (the first, the last, one between, all in one).
 */
function sliced(db: DatabaseSync, key: string[], sql: (where: string) => string, asArrays: boolean) {
  const make = (from: boolean, to: boolean) => {
    const statement = db.prepare(
      sql([from ? after(key, 'r.') : '1', to ? upTo(key, 'r.') : '1'].join(' AND ')),
    )
    if (asArrays) arrays(statement)
    return statement
  }
  const [both, fromOnly, toOnly, all] = [
    make(true, true),
    make(true, false),
    make(false, true),
    make(false, false),
  ]
  return (from: Key | undefined, to: Key | undefined) => ({
    statement: from === undefined ? (to === undefined ? all : toOnly) : to === undefined ? fromOnly : both,
    params: [...(from ?? []), ...(to ?? [])],
  })
}

/**
 * The checks of a table that read its rows in code: its rule in code (Table.verify) and its caps
 * (Table.limits), counted across the slices. Undefined when it has neither.
 */
function checksInCode(table: Table, key: string[], r: Rebuild) {
  const limits = table.limits ?? []
  if (table.verify === undefined && limits.length === 0) return undefined
  const counts = limits.map(() => new Map<unknown, number>())
  return (row: Record<string, SQLOutputValue>): void => {
    const problem = table.verify?.(row, r.settings)
    if (problem !== undefined)
      throw refusalOf(
        table,
        key.map((k) => row[k] ?? null),
        problem,
        r.what,
      )
    for (const [i, {per, max}] of limits.entries()) {
      const count = (counts[i]!.get(row[per]) ?? 0) + 1
      counts[i]!.set(row[per], count)
      if (count > max)
        throw invalid(
          r.what,
          `it holds more than ${max} ${table.name} rows of one ${per}, the API's cap; nothing was restored`,
        )
    }
  }
}

/**
 * Check every row of the table, a slice at a time: against its conditions in SQL, then against its
 * checks in code, which read the slice's rows.
 */
async function check(
  db: DatabaseSync,
  plan: TablePlan,
  tables: readonly Table[],
  partners: readonly string[],
  r: Rebuild,
): Promise<void> {
  const {table, key, columns} = plan
  const conditions = conditionsOf(table, tables, partners)
  const all = conditions.map((c) => c.sql).join(' AND ')
  const keys = key.map((k) => `r.${k}`).join(', ')
  const find = sliced(
    db,
    key,
    (where) => `SELECT ${keys} FROM main.${table.name} AS r WHERE ${where} AND NOT (${all}) LIMIT 1`,
    true,
  )
  const inCode = checksInCode(table, key, r)
  const rows =
    inCode &&
    sliced(
      db,
      key,
      (where) =>
        `SELECT ${columns.map((c) => `r.${c}`).join(', ')} FROM main.${table.name} AS r WHERE ${where}`,
      false,
    )
  for (let i = 0, from: Key | undefined; i <= plan.bounds.length; i++) {
    const to = plan.bounds[i]
    const slice = find(from, to)
    const bad = slice.statement.get(...slice.params) as unknown as Key | undefined
    if (bad !== undefined) throw refusal(db, table, key, bad, conditions, r.what)
    if (inCode !== undefined && rows !== undefined) {
      const those = rows(from, to)
      for (const row of those.statement.all(...those.params)) inCode(row as Record<string, SQLOutputValue>)
    }
    from = to
    await nextTurn()
  }
}

/** The refusal of a row that breaks a condition, naming the row and the first condition it breaks. */
function refusal(
  db: DatabaseSync,
  table: Table,
  key: string[],
  row: Key,
  conditions: Condition[],
  what: string,
) {
  const where = key.map((k) => `r.${k} = ?`).join(' AND ')
  const broken = conditions.find(
    (c) =>
      db.prepare(`SELECT 1 FROM main.${table.name} AS r WHERE ${where} AND NOT (${c.sql})`).get(...row) !==
      undefined,
  )
  return refusalOf(table, row, broken?.what ?? "it breaks the sandbox's rules", what)
}

/**
 * A refusal naming the row by its key where the key is a row number or an id (a key that is a
 * secret, as a link token is, is left out), and what is wrong with it.
 */
function refusalOf(table: Table, row: Key, problem: string, what: string) {
  const named =
    row.length === 1 && /^(\d{1,16}|[a-z]{1,5}_[0-9a-f]{24})$/.test(String(row[0]))
      ? ` ${String(row[0])}`
      : ''
  return invalid(what, `its ${table.name} row${named}: ${problem}; nothing was restored`)
}

interface LedgerRow {
  seq: number
  transaction_id: string
  account: string
  amount: string
  wallet_id: string | null
  available_after: string | null
  pending_after: string | null
  reserved_after: string | null
}

const BUCKETS = ['available', 'pending', 'reserved'] as const

/**
 * Every wallet's balances are what its ledger entries add up to, each entry leaves the wallet with
 * the balance it records, and each transaction's entries add up to zero: money is neither made nor
 * lost by a restore. Amounts are exact integers of any size (BigInt), read a slice at a time.
 */
async function checkLedger(db: DatabaseSync, what: string): Promise<void> {
  const wrong = (message: string) => invalid(what, `${message}; nothing was restored`)
  const running = new Map<string, bigint[]>()
  const postings = new Map<string, bigint>()
  const page = db.prepare(
    `SELECT seq, transaction_id, account, amount, wallet_id, available_after, pending_after, reserved_after
     FROM ledger_entries WHERE seq > ? ORDER BY seq LIMIT ${SLICE_ROWS}`,
  )
  for (let last = -1; ; ) {
    const rows = page.all(last) as unknown as LedgerRow[]
    if (rows.length === 0) break
    for (const e of rows) {
      const amount = BigInt(e.amount)
      postings.set(e.transaction_id, (postings.get(e.transaction_id) ?? 0n) + amount)
      if (e.wallet_id === null) {
        if (!/^external:[a-z_]{1,32}$/.test(e.account))
          throw wrong(`its ledger entry ${e.seq} is on no account`)
        continue
      }
      const bucket = BUCKETS.indexOf(e.account.slice(e.wallet_id.length + 1) as (typeof BUCKETS)[number])
      if (!e.account.startsWith(`${e.wallet_id}:`) || bucket < 0)
        throw wrong(
          `its ledger entry ${e.seq} is on ${e.account.slice(0, 80)}, not a bucket of wallet ${e.wallet_id}`,
        )
      const balances = running.get(e.wallet_id) ?? [0n, 0n, 0n]
      balances[bucket] = (balances[bucket] ?? 0n) + amount
      running.set(e.wallet_id, balances)
      const after = [e.available_after, e.pending_after, e.reserved_after]
      if (after.some((v, i) => v === null || BigInt(v) !== balances[i]))
        throw wrong(
          `its ledger entry ${e.seq} records a balance of wallet ${e.wallet_id} its entries do not add up to`,
        )
    }
    last = rows.at(-1)!.seq
    await nextTurn()
  }
  for (const [transaction, sum] of postings)
    if (sum !== 0n) throw wrong(`the ledger entries of transaction ${transaction} do not add up to zero`)
  const wallets = db.prepare(
    `SELECT seq, id, available, pending, reserved FROM wallets WHERE seq > ? ORDER BY seq LIMIT ${SLICE_ROWS}`,
  )
  for (let last = -1; ; ) {
    const rows = wallets.all(last) as unknown as {
      seq: number
      id: string
      available: string
      pending: string
      reserved: string
    }[]
    if (rows.length === 0) break
    for (const w of rows) {
      const sums = running.get(w.id) ?? [0n, 0n, 0n]
      if ([w.available, w.pending, w.reserved].some((v, i) => BigInt(v) !== sums[i]))
        throw wrong(`wallet ${w.id}'s balances are not what its ledger entries add up to`)
    }
    last = rows.at(-1)!.seq
    await nextTurn()
  }
}
