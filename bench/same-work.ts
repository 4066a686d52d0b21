/**
 * What the sandbox writes for one wallet-to-wallet transfer, read from its own data file, for the
 * same-work server (bench/same-work-server.ts) to write again on every request. Nothing here names
 * a table or a column: the rows are whatever the sandbox's code wrote, so the yardstick follows the
 * sandbox's data model as it changes and cannot drift from it.
 *
 * How: three transfers between the same two wallets; the file is read whole before and after the
 * second and the third (a read-only connection beside the running sandbox), and each difference is
 * the work of one transfer: the rows it added, table by table, and the columns it changed in rows
 * that were there. Two of them tell what is the same in every transfer (a status, a fee) from what
 * is new each time (ids, times, the row numbers events are indexed under). Besides the file: the
 * answer (status, headers, body), the request log's line and the line on stderr. Not a test.
 */
import {readFileSync} from 'node:fs'
import {DatabaseSync, type SQLOutputValue} from 'node:sqlite'

/** A piece of text of a transfer: literal, or what a request puts there. */
export type Part =
  | string
  | {of: 'source' | 'destination' | 'key' | 'now'}
  /** The n-th id the transfer made: a fresh one of the same shape on each request. */
  | {of: 'fresh'; n: number}

/**
 * A JSON document a transfer writes (an event's data, the stored answer): its strings that a
 * request fills in are {parts}; the server builds the document and serializes it, as any server must.
 */
export type Json = null | boolean | number | string | {parts: Part[]} | Json[] | {object: [string, Json][]}

/** A text a transfer writes: plain, or a JSON document. */
export type Text = {text: Part[]} | {json: Json}

/** A value a transfer writes. */
export type Value =
  | {literal: SQLOutputValue}
  | Text
  /** The row number SQLite gave the `insert`-th insert of this transfer (events' subjects name it). */
  | {rowidOf: number}
  /** The current time in milliseconds. */
  | {nowMs: true}

export interface TransferWork {
  /** In the order they must run: a row naming another's row number comes after it. */
  inserts: {table: string; columns: string[]; values: Value[]}[]
  updates: {table: string; set: [string, Value][]; where: [string, Value][]}[]
  /** The ids a transfer makes, by number: prefix, length of the hex, and whether it starts with the clock. */
  fresh: {prefix: string; hex: number; timeOrdered: boolean}[]
  answer: {status: number; headers: [string, Part[]][]; body: Text}
  requestLogLine: Text
  stderrLine: Part[]
  partnerId: string
}

type Row = Record<string, SQLOutputValue>
/** Every row of every table, by table and then by row number (or primary key, WITHOUT ROWID). */
type Dump = Map<string, Map<string, Row>>
interface TableShape {
  name: string
  rowid: boolean
  /** Its primary key's columns; for a rowid table whose key is its row number, that column. */
  key: string[]
  alias: boolean
}
/** The tables' shapes, as the last dump read them. */
const shapes = new Map<string, TableShape>()

/** The data file's tables as the sandbox made them, each with its primary key and whether it has rowids. */
function tablesOf(db: DatabaseSync): TableShape[] {
  const names = db
    .prepare(
      "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
    .all()
    .map((r) => String(r.name))
  return names.map((name) => {
    const rowid = db.prepare('SELECT wr FROM pragma_table_list WHERE name = ?').get(name)?.wr === 0
    const info = db.prepare('SELECT name, type, pk FROM pragma_table_info(?) ORDER BY pk').all(name)
    const keys = info.filter((c) => Number(c.pk) > 0)
    const alias = rowid && keys.length === 1 && String(keys[0]!.type).toUpperCase() === 'INTEGER'
    return {name, rowid, key: keys.map((c) => String(c.name)), alias}
  })
}

function dump(file: string): Dump {
  const db = new DatabaseSync(file, {readOnly: true})
  try {
    const all: Dump = new Map()
    for (const t of tablesOf(db)) {
      shapes.set(t.name, t)
      const rows = new Map<string, Row>()
      const sql = t.rowid ? `SELECT rowid AS "#rowid", * FROM "${t.name}"` : `SELECT * FROM "${t.name}"`
      for (const row of db.prepare(sql).all()) {
        const id = t.rowid ? String(row['#rowid']) : JSON.stringify(t.key.map((k) => row[k]))
        rows.set(id, row)
      }
      all.set(t.name, rows)
    }
    return all
  } finally {
    db.close()
  }
}

/** A transfer's change to the file: rows added (in row order) and rows changed, table by table. */
interface Change {
  inserts: {table: string; rowid: number | undefined; row: Row}[]
  updates: {table: string; before: Row; after: Row}[]
}

function changeBetween(before: Dump, after: Dump): Change {
  const change: Change = {inserts: [], updates: []}
  for (const [table, rows] of after) {
    const old = before.get(table) ?? new Map<string, Row>()
    for (const [id, row] of rows) {
      const was = old.get(id)
      const rowid = '#rowid' in row ? Number(row['#rowid']) : undefined
      if (was === undefined) change.inserts.push({table, rowid, row})
      else if (JSON.stringify(was) !== JSON.stringify(row))
        change.updates.push({table, before: was, after: row})
    }
    for (const id of old.keys())
      if (!rows.has(id))
        throw new Error(`a transfer deleted a row of ${table}: the same-work server does not know how`)
  }
  return change
}

const TOKEN = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z|\b[a-z]{2,5}_[0-9a-f]{16,}\b/g

/** What a capture knows of the transfer it watched. */
export interface Watched {
  source: string
  destination: string
  key: string
  answer: {status: number; headers: Record<string, string>; body: string}
}

/**
 * Turns the texts of one transfer into parts: its wallets and key, the time, the ids it made (the
 * same id the same number everywhere), and the rest as it is. An id found in the file before the
 * transfer (the partner's, a user's) is kept as it is.
 */
class Templates {
  readonly fresh: TransferWork['fresh'] = []
  readonly #numbers = new Map<string, number>()
  readonly watched: Watched
  readonly known: string

  constructor(watched: Watched, known: string) {
    this.watched = watched
    this.known = known
  }

  /** A text as its parts, or a JSON document's, to build again. */
  text(text: string): Text {
    if (!text.startsWith('{') && !text.startsWith('[')) return {text: this.parts(text)}
    try {
      return {json: this.#json(JSON.parse(text))}
    } catch {
      return {text: this.parts(text)}
    }
  }

  #json(value: unknown): Json {
    if (typeof value === 'string') {
      const parts = this.parts(value)
      return parts.length === 1 && typeof parts[0] === 'string' ? value : {parts}
    }
    if (Array.isArray(value)) return value.map((v) => this.#json(v))
    if (value !== null && typeof value === 'object')
      return {object: Object.entries(value).map(([k, v]) => [k, this.#json(v)])}
    return value as Json
  }

  parts(text: string): Part[] {
    const {source, destination, key} = this.watched
    const parts: Part[] = []
    let at = 0
    const pattern = new RegExp(`${TOKEN.source}|${key.replace(/[^0-9a-zA-Z]/g, '\\$&')}`, 'g')
    for (const match of text.matchAll(pattern)) {
      const token = match[0]
      const part = this.#part(token, {source, destination, key})
      if (part === undefined) continue
      if (match.index > at) parts.push(text.slice(at, match.index))
      parts.push(part)
      at = match.index + token.length
    }
    if (at < text.length) parts.push(text.slice(at))
    return parts
  }

  #part(token: string, named: {source: string; destination: string; key: string}): Part | undefined {
    for (const name of ['source', 'destination', 'key'] as const) if (token === named[name]) return {of: name}
    if (/^\d{4}-/.test(token)) return {of: 'now'}
    if (this.known.includes(token)) return undefined
    let n = this.#numbers.get(token)
    if (n === undefined) {
      n = this.fresh.length
      this.#numbers.set(token, n)
      const [prefix = '', hex = ''] = token.split('_')
      const clock = Number.parseInt(hex.slice(0, 11), 16)
      this.fresh.push({prefix, hex: hex.length, timeOrdered: Math.abs(clock - Date.now()) < 86_400_000})
    }
    return {of: 'fresh', n}
  }
}

/**
 * The work of a transfer from two changes of the same transfer (`first`, `second`): a value the two
 * agree on is a literal, an integer that differs is the row number of a row the transfer added or
 * the time, and a text that differs is read by `templates`.
 */
function workOf(
  first: Change,
  second: Change,
  templates: Templates,
): Pick<TransferWork, 'inserts' | 'updates'> {
  if (first.inserts.length !== second.inserts.length || first.updates.length !== second.updates.length)
    throw new Error(
      'two transfers changed the data file differently: is something else running in the sandbox?',
    )
  const rowids = new Map(second.inserts.map((insert, i) => [insert.rowid, i]))
  const valueBetween = (a: SQLOutputValue, b: SQLOutputValue): Value => {
    if (typeof b === 'string') return templates.text(b)
    if (a === b || (typeof b !== 'number' && typeof b !== 'bigint')) return {literal: b}
    const insert = rowids.get(Number(b))
    if (insert !== undefined) return {rowidOf: insert}
    if (Number(b) > 1e12) return {nowMs: true}
    return {literal: b}
  }
  const inserts = second.inserts.map(({table, row}, i) => {
    const shape = shapes.get(table)!
    const columns = Object.keys(row).filter((c) => c !== '#rowid' && !(shape.alias && c === shape.key[0]))
    return {table, columns, values: columns.map((c) => valueBetween(first.inserts[i]!.row[c]!, row[c]!))}
  })
  // A row naming another's row number is written after it.
  const order = inserts.map((insert, i) => ({
    insert,
    i,
    after: Math.max(-1, ...insert.values.map((v) => ('rowidOf' in v ? v.rowidOf : -1))),
  }))
  order.sort((a, b) => (a.after === b.after ? a.i - b.i : a.after - b.after))
  const moved = new Map(order.map((o, at) => [o.i, at]))
  for (const {insert} of order)
    for (const v of insert.values) if ('rowidOf' in v) v.rowidOf = moved.get(v.rowidOf)!
  const updates = second.updates.map(({table, before, after}, i) => {
    const changed = Object.keys(after).filter((c) => JSON.stringify(after[c]) !== JSON.stringify(before[c]))
    const shape = shapes.get(table)!
    const where = 'id' in after ? ['id'] : shape.key
    const firstAfter = first.updates[i]!.after
    return {
      table,
      set: changed.map((c): [string, Value] => [c, valueBetween(firstAfter[c]!, after[c]!)]),
      where: where.map((c): [string, Value] => [c, {text: templates.parts(String(after[c]))}]),
    }
  })
  return {inserts: order.map((o) => o.insert), updates}
}

/** The last line of a text file (the request log's, the sandbox's stderr). */
const lastLine = (file: string): string => readFileSync(file, 'utf8').trimEnd().split('\n').at(-1) ?? ''

/**
 * Watch the sandbox on `dataFile` run `transfer` three times (one to start its counters, two
 * watched) and describe what one transfer writes.
 */
export async function captureTransferWork(
  dataFile: string,
  stderrFile: string,
  partnerId: string,
  transfer: () => Promise<Watched>,
): Promise<TransferWork> {
  await transfer()
  const settle = () => new Promise((r) => setTimeout(r, 200))
  await settle()
  const changes: Change[] = []
  let watched: Watched | undefined
  let before = dump(dataFile)
  for (let i = 0; i < 2; i++) {
    watched = await transfer()
    await settle()
    const after = dump(dataFile)
    changes.push(changeBetween(before, after))
    before = after
  }
  const known = JSON.stringify(
    [...before.values()]
      .flatMap((rows) => [...rows.values()])
      .filter((r) => !changes[1]!.inserts.some((i) => i.row === r)),
    (_k, v) => (typeof v === 'bigint' ? String(v) : v),
  )
  const templates = new Templates(watched!, known)
  const {inserts, updates} = workOf(changes[0]!, changes[1]!, templates)
  const {status, headers, body} = watched!.answer
  return {
    inserts,
    updates,
    answer: {
      status,
      headers: Object.entries(headers)
        .filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name))
        .map(([name, value]) => [name, templates.parts(value)]),
      body: templates.text(body),
    },
    requestLogLine: templates.text(lastLine(`${dataFile}-requests.log`)),
    stderrLine: templates.parts(lastLine(stderrFile)),
    fresh: templates.fresh,
    partnerId,
  }
}
