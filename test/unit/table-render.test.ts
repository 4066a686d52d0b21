import {createRequire} from 'node:module'
import type CliTable3 from 'cli-table3'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {type Column, renderTable} from '../../src/cli/rendering/output.js'
import {paint} from '../../src/cli/rendering/terminal.js'

/**
 * renderTable lays its borderless tables out with cli-table3's `compact` style, which skips the
 * border line between rows: with no border characters that line is empty and cli-table3 drops it,
 * so a table must print exactly as cli-table3 prints it without `compact`.
 */

const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3
const NO_BORDERS = Object.fromEntries(
  [
    'top',
    'top-mid',
    'top-left',
    'top-right',
    'bottom',
    'bottom-mid',
    'bottom-left',
    'bottom-right',
    'left',
    'left-mid',
    'mid',
    'mid-mid',
    'right',
    'right-mid',
    'middle',
  ].map((name) => [name, '']),
)

/** The same table as cli-table3 draws it with every border line, empty ones dropped by it. */
function drawnWithBorderLines(rows: string[][], headers: string[], continued: boolean): string {
  const table = new Table({
    head: continued ? [] : headers.map((h) => paint('bold', h)),
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 2},
    chars: NO_BORDERS,
  })
  for (const row of rows) table.push(row)
  return table.toString()
}

// Cells as payctl's are: one line of ids, amounts, times, wide and accented text, or nothing.
const cell = fc.oneof(
  fc.constantFrom(
    '',
    '—',
    '60.00 USD',
    '2026-12-10T06:23:06.483Z',
    'txn_1a21685b714162579d0bf6c0',
    'café',
    '支払い',
  ),
  fc.string({maxLength: 30}),
)

describe('tables', () => {
  it('print as cli-table3 prints them with the line between rows, any rows, with or without a header', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({min: 1, max: 6})
          .chain((width) =>
            fc.tuple(
              fc.array(cell, {minLength: width, maxLength: width}),
              fc.array(fc.array(cell, {minLength: width, maxLength: width}), {maxLength: 8}),
              fc.boolean(),
            ),
          ),
        async ([headers, rows, continued]) => {
          const columns: Column<string[]>[] = headers.map((header, i) => ({header, get: (row) => row[i]!}))
          expect(await renderTable(rows, columns, continued)).toBe(
            drawnWithBorderLines(rows, headers, continued),
          )
        },
      ),
      {numRuns: 300},
    )
  })
})
