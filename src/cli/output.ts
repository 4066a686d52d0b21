import {createRequire} from 'node:module'
import type CliTable3 from 'cli-table3'
import {paint, terminalSafe} from './terminal.js'

const require = createRequire(import.meta.url)
// cli-table3 is only loaded by commands that print a table.
const Table = () => require('cli-table3') as typeof CliTable3

export interface Column<T> {
  header: string
  get: (row: T) => string
}

/** A borderless table for lists; `continued` leaves out the header (a later page of a stream). */
export function renderTable<T>(rows: T[], columns: Column<T>[], continued = false): string {
  const table = new (Table())({
    head: continued ? [] : columns.map((c) => paint('bold', c.header)),
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 2},
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
  return table.toString()
}

/** A key/value card for one record. */
export function renderCard(rows: [string, string | undefined][]): string {
  const shown = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '')
  const width = Math.max(...shown.map(([k]) => k.length))
  return shown.map(([k, v]) => `${paint('dim', k.padEnd(width))}  ${terminalSafe(v)}`).join('\n')
}
