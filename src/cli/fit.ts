import {stripVTControlCharacters} from 'node:util'
import type {Column} from './output.js'

/** Columns shown only where there is room: dropped first when a table is too wide. */
const LOW_PRIORITY = new Set(['NET', 'CREATED', 'UPDATED', 'LABEL', 'TOTAL', 'DESCRIPTION', 'METADATA'])
/** A record id (`wal_…`, `usr_…`): never cut short, since half an id finds nothing. */
const ID = /^[a-z][a-z0-9]{1,9}_[A-Za-z0-9_]{6,}$/
const PADDING = 2
const MIN_CUT = 12
/** Text longer than this may be shortened; shorter cells (amounts, statuses, types) are not. */
const LONG = 16

const width = (text: string) => stripVTControlCharacters(text).length

export interface Fitted<T> {
  columns: Column<T>[]
  /** Headers of the columns left out. */
  hidden: string[]
}

/**
 * The columns of a table narrowed to `max` characters, as gh and kubectl do: low-priority columns
 * go first, then long text is shortened with "…" (never an id), then columns go from the right;
 * the first column always stays. Measured on `rows` (the first page of a stream).
 */
export function fitColumns<T>(columns: Column<T>[], rows: T[], max: number): Fitted<T> {
  const cells = columns.map((c) => rows.map((r) => c.get(r)))
  const natural = columns.map((c, i) => Math.max(width(c.header), ...cells[i]!.map(width)))
  const isId = cells.map((list) => list.some((v) => ID.test(stripVTControlCharacters(v))))
  const shown = columns.map(() => true)
  const limit = [...natural]
  const total = () => limit.reduce((n, w, i) => n + (shown[i] ? w + PADDING : 0), 0)
  const drop = (order: number[]) => {
    for (const i of order) {
      if (total() <= max) return
      shown[i] = false
    }
  }
  const fromRight = columns
    .map((_, i) => i)
    .reverse()
    .filter((i) => i > 0)
  drop(fromRight.filter((i) => LOW_PRIORITY.has(columns[i]!.header)))
  // Then, as long as it does not fit: shorten long text (never an id, an amount or a status, which
  // are short), and where that is not enough, leave out the rightmost column and try again.
  for (;;) {
    for (const [i, w] of natural.entries()) limit[i] = w
    while (total() > max) {
      let widest = -1
      for (const [i, w] of limit.entries()) {
        if (
          shown[i] &&
          !isId[i] &&
          natural[i]! > LONG &&
          w > MIN_CUT &&
          (widest === -1 || w > limit[widest]!)
        )
          widest = i
      }
      if (widest === -1) break
      limit[widest] = limit[widest]! - 1
    }
    if (total() <= max) break
    const next = fromRight.find((i) => shown[i])
    if (next === undefined) break
    shown[next] = false
  }
  const fitted = columns.flatMap((c, i) => {
    if (!shown[i]) return []
    if (limit[i]! >= natural[i]!) return [c]
    const cap = limit[i]!
    return [{header: c.header, get: (row: T) => cut(c.get(row), cap)}]
  })
  return {columns: fitted, hidden: columns.filter((_, i) => !shown[i]).map((c) => c.header)}
}

function cut(text: string, cap: number): string {
  const plain = stripVTControlCharacters(text)
  return plain.length <= cap ? text : `${plain.slice(0, cap - 1)}…`
}
