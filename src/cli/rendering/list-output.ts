import {stripVTControlCharacters} from 'node:util'
import type {ScalarTag, Tags} from 'yaml'
import {usageError} from '../../core/errors.js'
import {stringifyExact} from '../../core/exact-json.js'
import {fitColumns} from './fit.js'
import {type Below, type Column, renderTable} from './output.js'
import {terminalSafe} from './terminal.js'

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'yaml', 'csv'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** A page of a list. Paging is not shown by the interface document: a page without it is the last. */
export interface Page {
  hasMore?: unknown
  nextCursor?: unknown
  [key: string]: unknown
}

export interface ListSpec<T, P extends Page> {
  /** Name of the items array in the page, e.g. "wallets". */
  key: string
  fetch: (cursor: string | undefined, limit: number | undefined) => Promise<P>
  items: (page: P) => T[]
  columns: Column<T>[]
  /** The values the list is filtered by (`--user X`): a column of nothing else is dropped first to fit. */
  filters?: readonly (string | undefined)[]
  /** What a table says when the list is empty (default: `No <key>.`). */
  empty?: string
}

export interface ListOptions {
  limit?: number | undefined
  all?: boolean | undefined
  cursor?: string | undefined
  format: OutputFormat
  columns?: string | undefined
  /** A terminal's width to fit a table to (no --columns or --wide); undefined leaves it whole. */
  width?: number | undefined
  /** Told the headers of columns left out to fit `width`. */
  onHidden?: ((headers: string[]) => void) | undefined
  /** The JSON form of an error that stops a json listing after its first page. */
  describeError?: ((err: unknown) => unknown) | undefined
}

const REPORTED = Symbol('reportedInOutput')

/** Whether a listing already wrote this error into its JSON document on stdout. */
export function reportedInOutput(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as {[REPORTED]?: boolean})[REPORTED] === true
}

const columnKey = (header: string) => header.toLowerCase().replace(/\s+/g, '-')

function pickColumns<T>(columns: Column<T>[], wanted: string | undefined): Column<T>[] {
  if (!wanted) return columns
  const keys = wanted
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean)
  return keys.map((key) => {
    const column = columns.find((c) => columnKey(c.header) === key)
    if (!column) {
      throw usageError(
        `unknown column "${key}"; choose from ${columns.map((c) => columnKey(c.header)).join(', ')}`,
        'INVALID_FLAG',
      )
    }
    return column
  })
}

function csvCell(text: string): string {
  // Colour from paint dropped; any other control character shown as an escape, as in a table.
  const plain = stripVTControlCharacters(terminalSafe(text))
  return /[",\n\r]/.test(plain) ? `"${plain.replaceAll('"', '""')}"` : plain
}

const YAML_STR = 'tag:yaml.org,2002:str'

/**
 * YAML for a person. A string (value or key) holding a control character is written double-quoted
 * with the escapes a table shows (`\x9b`, `\u202e`): YAML's own escapes, so a YAML reader still
 * gets the exact value back, while the library's own quoting would leave C1 and bidi controls raw.
 * Newlines and tabs alone need no escape: YAML writes them in its own ways.
 */
function humanYaml(yaml: typeof import('yaml'), items: unknown[]): string {
  const escaped = (tag: ScalarTag): ScalarTag => ({
    ...tag,
    stringify(item, ...rest) {
      const value = String(item.value)
      if (terminalSafe(value, {lines: true, colour: false}) === value) return tag.stringify!(item, ...rest)
      const quoted = value
        .replaceAll('\\', '\\\\')
        .replaceAll('"', '\\"')
        .replaceAll('\n', '\\n')
        .replaceAll('\t', '\\t')
      return `"${terminalSafe(quoted, {colour: false})}"`
    },
  })
  const customTags = (tags: Tags): Tags =>
    tags.map((tag) =>
      typeof tag === 'object' && tag.tag === YAML_STR && !tag.collection ? escaped(tag) : tag,
    )
  return yaml.stringify(items, {customTags})
}

/**
 * Fetch and print a list, page by page as pages arrive, in the chosen format. Returns the cursor
 * to continue from, if the listing stopped before the end.
 */
export async function streamList<T, P extends Page>(
  spec: ListSpec<T, P>,
  opts: ListOptions,
  write: (text: string) => void,
): Promise<{count: number; nextCursor: string | null}> {
  let columns = pickColumns(spec.columns, opts.columns)
  let below: Below<T> | undefined
  let fitted = opts.width === undefined || opts.columns !== undefined
  const want = opts.all ? Number.POSITIVE_INFINITY : (opts.limit ?? undefined)
  let cursor = opts.cursor
  let count = 0
  let nextCursor: string | null = null
  let yaml: typeof import('yaml') | undefined
  if (opts.format === 'yaml') yaml = await import('yaml')
  for (let first = true; ; first = false) {
    const pageSize = want === undefined ? undefined : Math.min(100, want - count)
    let page: P
    try {
      page = await spec.fetch(cursor, pageSize === Number.POSITIVE_INFINITY ? 100 : pageSize)
    } catch (err) {
      // A json document is already open on stdout: close it with what was fetched, the cursor to
      // resume from and why it stopped, so that stdout stays one valid JSON document.
      if (first || opts.format !== 'json' || typeof err !== 'object' || err === null) throw err
      const error = opts.describeError?.(err) ?? {message: String(err)}
      write(
        `${count === 0 ? '' : '\n'}], "hasMore": true, "nextCursor": ${JSON.stringify(cursor ?? null)}, "error": ${stringifyExact(error)}}\n`,
      )
      throw Object.assign(err, {[REPORTED]: true})
    }
    const items = spec.items(page)
    // Headers go out with the first page, so an error before it leaves stdout clean.
    if (first && opts.format === 'json') write(`{"${spec.key}": [`)
    if (first && opts.format === 'csv')
      write(`${columns.map((c) => csvCell(columnKey(c.header))).join(',')}\n`)
    if (opts.format === 'table' && !fitted && items.length > 0) {
      // Fitted to the first page, and the same columns for the pages after it.
      const fit = fitColumns(columns, items, opts.width!, spec.filters)
      columns = fit.columns
      below = {columns: fit.below, width: opts.width!, filters: spec.filters}
      fitted = true
      if (fit.hidden.length > 0) opts.onHidden?.(fit.hidden)
    }
    await writePage(opts.format, items, {columns, below, count, yaml}, write)
    count += items.length
    nextCursor = page.hasMore === true && typeof page.nextCursor === 'string' ? page.nextCursor : null
    if (!nextCursor || want === undefined || count >= want) break
    cursor = nextCursor
  }
  if (opts.format === 'json')
    write(
      `${count === 0 ? '' : '\n'}], "hasMore": ${nextCursor !== null}, "nextCursor": ${JSON.stringify(nextCursor)}}\n`,
    )
  return {count, nextCursor}
}

/** One page's items in `format`, after the `count` items of the pages before it. */
async function writePage<T>(
  format: OutputFormat,
  items: T[],
  at: {
    columns: Column<T>[]
    below?: Below<T> | undefined
    count: number
    yaml: typeof import('yaml') | undefined
  },
  write: (text: string) => void,
): Promise<void> {
  const {columns, count} = at
  switch (format) {
    case 'json':
      write(items.map((item, i) => `${count + i === 0 ? '' : ','}\n  ${stringifyExact(item)}`).join(''))
      break
    case 'ndjson':
      for (const item of items) write(`${stringifyExact(item)}\n`)
      break
    case 'yaml':
      if (items.length > 0) write(humanYaml(at.yaml!, items))
      break
    case 'csv':
      for (const item of items) write(`${columns.map((c) => csvCell(c.get(item))).join(',')}\n`)
      break
    default:
      if (items.length > 0) write(`${await renderTable(items, columns, count > 0, at.below)}\n`)
  }
}
