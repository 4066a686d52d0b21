import {format} from 'node:util'
import {stringifyExact} from '../../core/exact-json.js'
import {type JqFilter, jqFailed} from '../jq.js'
import type {IOStreams} from '../runtime/io.js'
import type {Row} from './field-readers.js'
import {fitColumns} from './fit.js'
import {type ListSpec, type OutputFormat, type Page, streamList} from './list-output.js'
import {type Column, renderCard, renderTable} from './output.js'
import {paint, terminalSafe} from './terminal.js'

export interface ListFlagValues {
  limit?: number | undefined
  all?: boolean | undefined
  cursor?: string | undefined
  output?: OutputFormat | undefined
  columns?: string | undefined
  wide?: boolean | undefined
}

export interface PrinterOptions {
  /** Whether --json was given: the record is then the output, and human output is silent. */
  json: () => boolean
  /** Whether --debug was given: no spinner then, between the request lines. */
  debug: () => boolean
  /** Whether --wide was given: tables keep every column, however wide the terminal. */
  wide: () => boolean
  /** The JSON form of an error that stops a json listing midway. */
  describeError: (err: unknown) => unknown
  /** Whether the command takes a flag (without dashes): a hint names only flags it has. */
  hasFlag?: (name: string) => boolean
  /** The --jq expression, compiled: what --json prints goes through it. */
  jq?: () => JqFilter | undefined
}

/**
 * A command's human output, on its streams: lines, cards, tables, lists, notes and spinners, each
 * in the form that suits where it goes (a terminal, a pipe, --json). Needs nothing of oclif.
 */
export class Printer {
  readonly io: IOStreams
  readonly #opts: PrinterOptions

  constructor(io: IOStreams, opts: PrinterOptions) {
    this.io = io
    this.#opts = opts
  }

  /**
   * A line on stdout (silent under --json). Values from the service reach the terminal only
   * through here, the card, table, CSV and YAML writers, and the error renderer: each escapes
   * control characters with terminalSafe, so none of them can drive the terminal.
   */
  log(message = '', ...args: unknown[]): void {
    if (this.#opts.json()) return
    const safe = terminalSafe(message, {lines: true})
    const text =
      args.length === 0
        ? safe
        : format(safe, ...args.map((a) => (typeof a === 'string' ? terminalSafe(a) : a)))
    this.io.out.write(`${text}\n`)
  }

  /**
   * The --json output: exact integers (amounts beyond 2^53 are bigint), no colour codes in pipes;
   * indented, unless on `oneLine` (a stream of JSON lines).
   */
  json(value: unknown, opts: {oneLine?: boolean} = {}): void {
    this.io.out.write(this.jsonText(value, opts))
  }

  /** What json() prints for `value`; with --jq, what the expression makes of it. */
  jsonText(value: unknown, opts: {oneLine?: boolean} = {}): string {
    if (this.#opts.jq?.() === undefined) return `${stringifyExact(value, opts.oneLine ? undefined : 2)}\n`
    return this.filtered(stringifyExact(value), value)
  }

  /**
   * A JSON document's text (a response body, a list) as printed: itself, or with --jq what the
   * expression makes of it. An expression that fails on it throws JQ_FAILED (`record` names what
   * the command made), after the results it gave before failing.
   */
  filtered(document: string, record?: unknown): string {
    const jq = this.#opts.jq?.()
    if (jq === undefined) return document
    const result = jq.apply(document, this.io.out.isTTY)
    if (result.err !== '') this.io.err.write(result.err)
    if (result.failure === undefined) return result.out
    this.io.out.write(result.out)
    throw jqFailed(jq, result.failure, record)
  }

  /** A --debug line (a request or an answer, secrets redacted) on stderr, dimmed; also under --json. */
  readonly debugLine = (line: string): void => {
    this.io.err.write(`${paint('dim', line, this.io.err)}\n`)
  }

  /** A note on stderr, hidden under --json. */
  warn(text: string): void {
    if (!this.#opts.json()) this.io.err.write(`${paint('yellow', text, this.io.err)}\n`)
  }

  /** A record as a key/value card (not under --json). */
  card(rows: Row[]): void {
    this.log(renderCard(rows))
  }

  /**
   * Say that a change was made: in a terminal a tick and `what` (with the id in bold, if given);
   * piped, the bare id alone, so that `ID=$(payctl …)` works. Nothing under --json, where the
   * record is the output. Returns whether a person is reading (stdout is a terminal).
   */
  done(what: string, id?: string): boolean {
    if (this.#opts.json()) return this.io.out.isTTY
    if (!this.io.out.isTTY) {
      if (id !== undefined) this.log(id)
      return false
    }
    this.log(
      `${paint('green', '✓', this.io.out)} ${what}${id === undefined ? '' : ` ${paint('bold', id, this.io.out)}`}`,
    )
    return true
  }

  /**
   * Confirm a mutation: done(), then the record's card in a terminal. An answer with no id (the
   * service need not send one where the interface shows none) is printed piped as one line of
   * JSON instead: never nothing.
   */
  created(what: string, id: unknown, rows: Row[], answer?: unknown): void {
    if (this.#opts.json()) return
    const shownId = typeof id === 'string' && id !== '' ? id : undefined
    if (shownId === undefined && !this.io.out.isTTY) {
      this.log(stringifyExact(answer ?? {}))
      return
    }
    if (this.done(what, shownId)) this.log(renderCard(rows))
  }

  /**
   * Rows as a table (not under --json), fitted to a terminal's width unless --wide; `filters` are
   * the values the rows were chosen by (fitColumns).
   */
  async table<R>(rows: R[], columns: Column<R>[], filters?: readonly (string | undefined)[]): Promise<void> {
    // Silent under --json: not even laid out (cli-table3 costs a one-call command a fifth of its start).
    if (this.#opts.json()) return
    const width = this.tableWidth(this.#opts.wide())
    if (width === undefined || rows.length === 0) {
      this.log(await renderTable(rows, columns))
      return
    }
    const fit = fitColumns(columns, rows, width, filters)
    this.log(await renderTable(rows, fit.columns, false, {columns: fit.below, width, filters}))
    if (fit.hidden.length > 0) this.#hiddenNote(fit.hidden)
  }

  /** The width to fit tables to: a terminal's, unless --wide; none when stdout is not a terminal. */
  tableWidth(wide: boolean | undefined): number | undefined {
    return wide ? undefined : this.io.out.width
  }

  /** Whether the command takes `--name`: hints name no flag it lacks. */
  #has(name: string): boolean {
    return this.#opts.hasFlag?.(name) ?? true
  }

  readonly #hiddenNote = (headers: string[]) =>
    this.warn(
      `Hidden to fit the terminal: ${headers.join(', ')} (${this.#has('wide') ? '--wide shows all' : '--json shows every field'})`,
    )

  /**
   * A list in the format the user chose, streamed page by page; under --json the output is the
   * page shape with every item fetched.
   */
  async list<T, P extends Page>(spec: ListSpec<T, P>, flags: ListFlagValues): Promise<void> {
    const format = this.#opts.json() ? 'json' : (flags.output ?? 'table')
    // With --jq the expression takes the whole document: held until the last page is in.
    const jq = format === 'json' && this.#opts.jq?.() !== undefined
    let held = ''
    const {count, nextCursor} = await streamList(
      spec,
      {
        ...flags,
        format,
        describeError: this.#opts.describeError,
        width: this.tableWidth(flags.wide),
        onHidden: this.#hiddenNote,
      },
      (text) => {
        if (jq) held += text
        else this.io.out.write(text)
      },
    )
    if (jq) this.io.out.write(this.filtered(held))
    if (format !== 'table') return
    if (count === 0) this.log(spec.empty ?? `No ${spec.key.replace(/([A-Z])/g, ' $1').toLowerCase()}.`)
    if (nextCursor && this.#has('cursor') && this.#has('all'))
      this.warn(`More ${spec.key}: --cursor=${nextCursor}, or --all for everything`)
    else if (nextCursor) this.warn(`More ${spec.key} than shown.`)
  }

  /**
   * A list held whole (not paged) in the --output format; `whole` is what --json and `--output
   * json` print. Returns false for a table, which the command prints its own way.
   */
  async printList<T>(
    whole: unknown,
    key: string,
    items: T[],
    columns: Column<T>[],
    flags: {output?: OutputFormat | undefined; columns?: string | undefined},
  ): Promise<boolean> {
    if (this.#opts.json()) return true
    const format = flags.output ?? 'table'
    if (format === 'table' && flags.columns === undefined) return false
    if (format === 'json') {
      this.json(whole)
      return true
    }
    const page = {hasMore: false, nextCursor: null}
    await streamList(
      {key, columns, fetch: async () => page, items: () => items},
      {format, columns: flags.columns},
      (t) => this.io.out.write(t),
    )
    return true
  }

  /**
   * Run `work` with a spinner on stderr when a person is watching; plain otherwise. A terminal that
   * reports no width (a bare pseudo-terminal) gets none: the spinner would redraw without end.
   */
  async spin<R>(text: string, work: () => Promise<R>): Promise<R> {
    const err = this.io.err
    if (this.#opts.json() || !err.isTTY || !err.columns || this.#opts.debug()) return work()
    const {default: ora} = await import('ora')
    const spinner = ora({
      text,
      stream: err.stream as NodeJS.WriteStream,
      discardStdin: false,
      color: err.colour ? 'cyan' : false,
    }).start()
    try {
      return await work()
    } finally {
      spinner.stop()
    }
  }
}
