import {stripVTControlCharacters} from 'node:util'
import {describe, expect, it} from 'vitest'
import {fitColumns} from '../../src/cli/rendering/fit.js'
import {type Column, renderTable} from '../../src/cli/rendering/output.js'

/** The one rule every table is fitted to a terminal by (src/cli/rendering/fit.ts), on made-up rows. */

interface Row {
  id: string
  user: string
  time: string
  event: string
  amount: string
  note: string
  label: string
}
const row = (n: number): Row => ({
  id: `txn_${String(n).padStart(24, '0')}`,
  user: 'usr_000000000000000000000001',
  time: `2026-12-1${n}T20:14:05.123Z`,
  event: 'bnplsvc.payment.completed',
  amount: '1,234,567.89 USD',
  note: 'a long free text that may be shortened when nothing else helps',
  label: 'holiday savings',
})
const column = (header: string, key: keyof Row): Column<Row> => ({header, get: (r) => r[key]})
const COLUMNS = [
  column('ID', 'id'),
  column('USER', 'user'),
  column('TIME', 'time'),
  column('EVENT', 'event'),
  column('AMOUNT', 'amount'),
  column('LABEL', 'label'),
  column('NOTE', 'note'),
]
const ROWS = [row(1), row(2)]

async function render(max: number, filters: string[] = []) {
  const fit = fitColumns(COLUMNS, ROWS, max, filters)
  const text = stripVTControlCharacters(
    await renderTable(ROWS, fit.columns, false, {columns: fit.below, width: max, filters}),
  )
  return {fit, text, lines: text.split('\n')}
}

describe('fitting a table to a terminal', () => {
  it('changes nothing where it fits', async () => {
    const {fit} = await render(400)
    expect(fit.columns.map((c) => c.header)).toEqual(COLUMNS.map((c) => c.header))
    expect(fit.below).toEqual([])
    expect(fit.hidden).toEqual([])
  })

  it('drops a column that repeats the filter first, and says nothing of it', async () => {
    const {fit} = await render(200, ['usr_000000000000000000000001'])
    expect(fit.columns.map((c) => c.header)).not.toContain('USER')
    expect(fit.hidden).toEqual([])
    expect(fit.columns.map((c) => c.header)).toContain('TIME')
  })

  it('shortens times before hiding anything, then hides low-priority columns, then moves the rest under its row', async () => {
    const {fit, lines} = await render(80)
    expect(fit.hidden).toEqual(['LABEL'])
    for (const line of lines) expect(line.trimEnd().length, line).toBeLessThanOrEqual(80)
    expect(lines[1]).toMatch(/^txn_0{23}1 +usr_0{23}1 +12-11 20:14/)
    // Nothing but the label is lost: the event, the amount and the note are under each row, whole.
    const second = lines.slice(1).join('\n')
    expect(second).toContain('event bnplsvc.payment.completed')
    expect(second).toContain('amount 1,234,567.89 USD')
    expect(second.replace(/\n\s+/g, ' ')).toContain(row(1).note)
    expect(second).not.toContain('…')
  })

  it('never cuts an id, a time, an amount or a name, even where nothing else fits', async () => {
    const {text} = await render(30)
    expect(text).toContain(row(1).id)
    expect(text).not.toMatch(/\d…|[A-Z]…|\.[a-z]*…/)
  })

  it('leaves a value the list is filtered by out of the lines under a row', async () => {
    const narrow = fitColumns(COLUMNS, ROWS, 40, ['bnplsvc.payment.completed'])
    const text = await renderTable(ROWS, narrow.columns, false, {
      columns: narrow.below,
      width: 40,
      filters: ['bnplsvc.payment.completed'],
    })
    expect(text).not.toContain('bnplsvc')
  })
})
