import {stripVTControlCharacters} from 'node:util'
import {type LoadedTables, loadCliTable3} from './table-load.js'
import {paint, terminalSafe} from './terminal.js'

let tables: Promise<LoadedTables> | undefined

/**
 * cli-table3, loaded by the first table a command prints (a command that prints none never loads
 * it), or by loadTablesAhead: in the bundle, its own script with a code cache, on both paths
 * (table-load.ts). A load that failed is tried again by the next table.
 */
function loadTables(): Promise<LoadedTables> {
  tables ??= loadCliTable3().catch((err: unknown) => {
    tables = undefined
    throw err
  })
  return tables
}

/**
 * Load cli-table3 now, for a table that is likely to come: the fast path calls it once its request
 * is sent, so that the load overlaps the service's work instead of following the answer. What it
 * cannot load, the table that needs it says.
 */
export function loadTablesAhead(): void {
  loadTables().catch(() => undefined)
}

export interface Column<T> {
  header: string
  get: (row: T) => string
  /**
   * What the cells hold, where their look does not say it (fit.ts reads ids, ISO times, amounts
   * with their currency and dotted names from the cells): such a cell is never cut with "…".
   */
  kind?: 'id' | 'time' | 'amount' | 'name'
}

/** Columns that did not fit a terminal beside the others, shown on lines under each row. */
export interface Below<T> {
  columns: Column<T>[]
  /** The terminal's width, which those lines wrap at. */
  width: number
  /** What the list is filtered by: a value equal to one says nothing new there. */
  filters?: readonly (string | undefined)[] | undefined
}

/**
 * A borderless table for lists; `continued` leaves out the header (a later page of a stream).
 * Columns `below` go on lines under each row.
 */
export async function renderTable<T>(
  rows: T[],
  columns: Column<T>[],
  continued = false,
  below?: Below<T>,
): Promise<string> {
  const loaded = await loadTables()
  const table = new loaded.Table({
    head: continued ? [] : columns.map((c) => paint('bold', c.header)),
    // compact: cli-table3 draws no border line between rows, which here would be empty lines that
    // it drops anyway; a third of a table's drawing, and the same bytes (test/unit/table-render.test.ts).
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 2, compact: true},
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  })
  // Cells hold service values: one line each, control characters escaped (colour from paint kept).
  for (const row of rows) table.push(columns.map((c) => terminalSafe(c.get(row))))
  const text = table.toString()
  loaded.laidOut?.()
  loaded.laidOut = undefined
  if (below === undefined || below.columns.length === 0) return text
  // One line a row (cells are escaped onto one line), after the header unless continued.
  const lines = text.split('\n')
  const header = continued ? [] : lines.slice(0, 1)
  const body = continued ? lines : lines.slice(1)
  return [
    ...header,
    ...rows.flatMap((row, i) => [
      body[i] ?? '',
      ...belowLines(row, below.columns, below.width, below.filters),
    ]),
  ].join('\n')
}

/**
 * The lines under a row for the columns that did not fit beside the others: `header value` pairs,
 * two spaces apart, wrapped to `max` (a value longer than a line is broken, never cut). A value
 * the list is filtered by is left out: it says nothing new.
 */
function belowLines<T>(
  row: T,
  below: Column<T>[],
  max: number,
  filters: readonly (string | undefined)[] = [],
): string[] {
  const pairs = below
    .map((c) => [c.header.toLowerCase(), terminalSafe(c.get(row))] as const)
    .filter(([, v]) => plain(v) !== '' && !filters.includes(plain(v)))
    .map(([k, v]) => `${k} ${v}`)
  const room = Math.max(20, max - BELOW_INDENT)
  const lines: string[] = []
  let line = ''
  for (const pair of pairs) {
    if (line !== '' && width(line) + 2 + width(pair) <= room) {
      line = `${line}  ${pair}`
      continue
    }
    if (line !== '') lines.push(line)
    line = pair
    // Stripped of colour to break it: a value this long is a command line or a message.
    while (width(line) > room) {
      // At the last space that leaves the line at least half full, else wherever it must.
      const p = stripVTControlCharacters(line)
      const space = p.lastIndexOf(' ', room)
      const at = space > room / 2 ? space : room
      lines.push(p.slice(0, at))
      line = p.slice(at).trimStart()
    }
  }
  if (line !== '') lines.push(line)
  return lines.map((l) => `${' '.repeat(BELOW_INDENT)}${l}`)
}

/** How far a line under its row is indented. */
const BELOW_INDENT = 2
const width = (text: string) => stripVTControlCharacters(text).length
const plain = (text: string) => stripVTControlCharacters(text).trim()

/** A key/value card for one record. */
export function renderCard(rows: [string, string | undefined][]): string {
  const shown = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '')
  const width = Math.max(...shown.map(([k]) => k.length))
  return shown.map(([k, v]) => `${paint('dim', k.padEnd(width))}  ${terminalSafe(v)}`).join('\n')
}
