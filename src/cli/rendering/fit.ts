import {stripVTControlCharacters} from 'node:util'
import type {Column} from './output.js'

/** Columns shown only where there is room: dropped first when a table is too wide. */
const LOW_PRIORITY = new Set(['NET', 'UPDATED', 'LABEL', 'DESCRIPTION', 'METADATA'])
/** A record id (`wal_…`, `usr_…`): never cut short, since half an id finds nothing. */
const ID = /^[a-z][a-z0-9]{1,9}_[A-Za-z0-9_]{6,}$/
/** A time as the service writes it (ISO 8601), or as a table shortens it. */
const TIME =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?|(\d{4}-)?\d{2}-\d{2} \d{2}:\d{2})$/
/** An amount with its currency, as money() writes it: cut, it would read as another amount. */
const AMOUNT = /^[-+]?[\d,]+(\.\d+)? [A-Z]{3,5}$/
/** A dotted name (`transaction.failed`, `bnplsvc.payment.created`): cut, it could be several. */
const NAME = /^[a-z][a-z0-9_]*(\.[a-z0-9_*]+)+$/
const PADDING = 2
const MIN_CUT = 12
/** Text longer than this may be shortened; shorter cells (statuses, types) are not. */
const LONG = 16

const width = (text: string) => stripVTControlCharacters(text).length
const plain = (text: string) => stripVTControlCharacters(text).trim()

export interface Fitted<T> {
  columns: Column<T>[]
  /** Columns that did not fit beside the others: shown on lines under each row (renderTable). */
  below: Column<T>[]
  /** Headers of the columns left out. */
  hidden: string[]
}

/** Whether a column's cells must be shown whole: ids, times, amounts and names never take a "…". */
function isWhole<T>(column: Column<T>, cells: string[]): boolean {
  if (column.kind !== undefined) return true
  return cells.some((v) => {
    const p = plain(v)
    return ID.test(p) || TIME.test(p) || AMOUNT.test(p) || NAME.test(p)
  })
}

/** Whether every cell of a column says what a filter of the list already says (`--user X`). */
function equalsFilter(cells: string[], filters: ReadonlySet<string>): boolean {
  const values = cells.map(plain).filter((v) => v !== '')
  return values.length > 0 && values.every((v) => filters.has(v))
}

/**
 * A time column in fewer characters (`12-10 20:14`, the year too when the rows span years), in
 * the zone the service wrote it in: for where a terminal is too narrow for ISO 8601.
 */
function shortTimes<T>(column: Column<T>, cells: string[]): Column<T> | undefined {
  const times = cells.map(plain).filter((v) => v !== '')
  if (times.length === 0 || !times.every((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v))) return undefined
  const oneYear = new Set(times.map((v) => v.slice(0, 4))).size === 1
  const short = (text: string) => {
    const v = plain(text)
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v)) return text
    return `${oneYear ? v.slice(5, 10) : v.slice(0, 10)} ${v.slice(11, 16)}`
  }
  return {...column, get: (row) => short(column.get(row))}
}

/**
 * The columns of a table narrowed to `max` characters, by one set of rules for every table, each
 * applied only while the table is still too wide:
 *
 * 1. a column that only repeats what the list is filtered by (`filters`: `--user X`) goes;
 * 2. times take a shorter form (`12-10 20:14`);
 * 3. low-priority columns (net, label…) go, and are named as hidden;
 * 4. columns from the right move to a line under their row: nothing else is lost;
 * 5. only then is long text shortened with "…", never an id, a time, an amount or a name.
 *
 * The first column always stays. Measured on `rows` (the first page of a stream).
 */
// Long: the five rules in order, each a short loop over the same widths.
export function fitColumns<T>(
  columns: Column<T>[],
  rows: T[],
  max: number,
  filters: readonly (string | undefined)[] = [],
): Fitted<T> {
  const cols = [...columns]
  const cells = cols.map((c) => rows.map((r) => c.get(r)))
  const natural = () => cols.map((c, i) => Math.max(width(c.header), ...cells[i]!.map(width)))
  let widths = natural()
  const whole = cols.map((c, i) => isWhole(c, cells[i]!))
  const state = cols.map((): 'shown' | 'below' | 'hidden' | 'filter' => 'shown')
  const total = () => widths.reduce((n, w, i) => n + (state[i] === 'shown' ? w + PADDING : 0), 0)
  const fits = () => total() <= max
  const rightmost = (ok: (i: number) => boolean) => [...cols.keys()].reverse().find((i) => i > 0 && ok(i))

  const given = new Set(filters.filter((f): f is string => f !== undefined && f !== ''))
  for (let i = cols.length - 1; i > 0 && !fits(); i--) {
    if (state[i] === 'shown' && equalsFilter(cells[i]!, given)) state[i] = 'filter'
  }
  if (!fits()) {
    for (const [i, c] of cols.entries()) {
      const short = state[i] === 'shown' ? shortTimes(c, cells[i]!) : undefined
      if (short === undefined) continue
      cols[i] = short
      cells[i] = rows.map((r) => short.get(r))
    }
    widths = natural()
  }
  for (
    let i = rightmost((j) => state[j] === 'shown' && LOW_PRIORITY.has(cols[j]!.header));
    i !== undefined && !fits();
  ) {
    state[i] = 'hidden'
    i = rightmost((j) => state[j] === 'shown' && LOW_PRIORITY.has(cols[j]!.header))
  }
  for (let i = rightmost((j) => state[j] === 'shown'); i !== undefined && !fits(); ) {
    state[i] = 'below'
    i = rightmost((j) => state[j] === 'shown')
  }
  const limit = [...widths]
  while (!fits()) {
    let widest = -1
    for (const [i, w] of limit.entries()) {
      const cuttable = state[i] === 'shown' && !whole[i] && widths[i]! > LONG && w > MIN_CUT
      if (cuttable && (widest === -1 || w > limit[widest]!)) widest = i
    }
    if (widest === -1) break
    limit[widest] = limit[widest]! - 1
    widths[widest] = limit[widest]!
  }
  const fitted = cols.flatMap((c, i) => {
    if (state[i] !== 'shown') return []
    const cap = limit[i]!
    return [natural()[i]! <= cap ? c : {...c, get: (row: T) => cut(c.get(row), cap)}]
  })
  return {
    columns: fitted,
    below: cols.filter((_, i) => state[i] === 'below'),
    hidden: cols.filter((_, i) => state[i] === 'hidden').map((c) => c.header),
  }
}

function cut(text: string, cap: number): string {
  const p = stripVTControlCharacters(text)
  return p.length <= cap ? text : `${p.slice(0, cap - 1)}…`
}
