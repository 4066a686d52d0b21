import {stringifyExact} from '../../core/exact-json.js'
import type {Investigation, TimelineLine} from '../../core/index.js'
import {fitColumns} from '../rendering/fit.js'
import {type Below, type Column, renderTable} from '../rendering/output.js'
import type {Printer} from '../rendering/printer.js'
import {
  inspectBnplColumns,
  inspectWalletColumns,
  missingLine,
  timelineColumns,
  windowLine,
} from './inspect-views.js'
import {userCard} from './resource-views.js'

/** How the story is printed: `--json`, `--output`, `--utc`, `--oldest-first`, `--wide`. */
export interface InspectOutput {
  json: boolean
  output?: 'table' | 'json' | 'ndjson' | undefined
  utc: boolean
  oldestFirst: boolean
  wide: boolean
}

/** Lines shown before the first screen is printed; the later ones go out a page at a time. */
const FIRST_SCREEN = 20
const LATER = 100

/** The whole story as one JSON document: for a ticket or a script. */
export interface InvestigationRecord {
  user: Record<string, unknown>
  wallets: unknown[]
  bnplPayments: unknown[] | null
  window: Investigation['window']
  missing: Investigation['missing']
  timeline: TimelineLine[]
}

async function* ordered(inv: Investigation, oldestFirst: boolean): AsyncGenerator<TimelineLine> {
  if (!oldestFirst) {
    yield* inv.lines
    return
  }
  // Every source pages newest first: the oldest line is known only once all are read.
  const all: TimelineLine[] = []
  for await (const line of inv.lines) all.push(line)
  yield* all.reverse()
}

/**
 * Print an investigation as the user asked: a document (returned, for --json, or printed for
 * `--output json`), a stream of JSON lines, or the screen: who, their wallets and BNPL payments,
 * what is missing, and the timeline streamed as it is merged.
 */
export async function printInvestigation(
  out: Printer,
  inv: Investigation,
  opts: InspectOutput,
): Promise<InvestigationRecord | undefined> {
  const format = opts.json ? 'json' : (opts.output ?? 'table')
  if (format === 'json') {
    const timeline: TimelineLine[] = []
    for await (const line of ordered(inv, opts.oldestFirst)) timeline.push(line)
    const {lines: _, ...rest} = inv
    const record = {...rest, bnplPayments: inv.bnplPayments ?? null, timeline}
    if (!opts.json) out.json(record)
    return record
  }
  const note = missingLine(inv.missing)
  if (format === 'ndjson') {
    if (note !== undefined) out.warn(note)
    for await (const line of ordered(inv, opts.oldestFirst)) out.io.out.write(`${stringifyExact(line)}\n`)
    return undefined
  }
  out.card(userCard(inv.user))
  out.log()
  if (inv.wallets.length === 0) out.log('No wallets.')
  else await out.table(inv.wallets, inspectWalletColumns)
  if (inv.bnplPayments !== undefined && inv.bnplPayments.length > 0) {
    out.log()
    await out.table(inv.bnplPayments, inspectBnplColumns)
  }
  if (note !== undefined) out.warn(note)
  out.log()
  out.log(windowLine(inv.window, opts.utc, opts.oldestFirst))
  await streamTimeline(out, ordered(inv, opts.oldestFirst), timelineColumns(opts.utc), opts.wide)
  return undefined
}

/** The timeline as a table, fitted to the terminal on its first screen and streamed after it. */
async function streamTimeline(
  out: Printer,
  lines: AsyncGenerator<TimelineLine>,
  all: Column<TimelineLine>[],
  wide: boolean,
): Promise<void> {
  const width = out.tableWidth(wide)
  let headers: string | undefined
  let batch: TimelineLine[] = []
  let shown = 0
  const flush = async () => {
    if (batch.length === 0) return
    let columns = all
    let below: Below<TimelineLine> | undefined
    // Each batch is fitted on its own (a later one may hold a longer status): the header is
    // repeated only where the columns it names change.
    if (width !== undefined) {
      const fit = fitColumns(all, batch, width)
      columns = fit.columns
      below = {columns: fit.below, width}
      if (fit.hidden.length > 0 && shown === 0)
        out.warn(`Hidden to fit the terminal: ${fit.hidden.join(', ')} (--wide shows all)`)
    }
    const names = columns.map((c) => c.header).join(',')
    out.log(await renderTable(batch, columns, names === headers, below))
    headers = names
    shown += batch.length
    batch = []
  }
  for await (const line of lines) {
    batch.push(line)
    if (batch.length >= (shown === 0 ? FIRST_SCREEN : LATER)) await flush()
  }
  await flush()
  if (shown === 0) out.log('Nothing happened in this window.')
}
