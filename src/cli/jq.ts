import type {Jq} from 'jq-wasm'
import {PayctlError, usageError} from '../core/errors.js'
import {terminalSafe} from './rendering/terminal.js'

/**
 * `--jq EXPR`: jq itself (jq 1.8, compiled to WebAssembly by jq-wasm: no binary to install), run on
 * the JSON document a command prints under --json, its results printed as gh prints them. Loaded
 * by the first --jq of a process, never otherwise: a command without it does not pay for it.
 */

let loading: Promise<Jq> | undefined

/** jq, loaded once for the process (a call on it is synchronous, so in-process runs can share it). */
function loadJq(): Promise<Jq> {
  loading ??= import('jq-wasm').then(
    (m) => m.loadJq(),
    (err: unknown) => {
      loading = undefined
      throw err
    },
  )
  return loading
}

/** What one document made: the text for stdout, jq's own messages (`debug`), and its error, if any. */
export interface JqResult {
  out: string
  err: string
  /** jq's error at run time, after the results it printed before it (`out`). */
  failure?: string | undefined
}

/** A `--jq` expression that compiles, and what it makes of a JSON document. */
export class JqFilter {
  readonly expression: string
  readonly #jq: Jq

  private constructor(expression: string, jq: Jq) {
    this.expression = expression
    this.#jq = jq
  }

  /**
   * Load jq and compile `expression`: one that does not compile (a syntax error, an unknown
   * function or variable) is a usage error naming --jq, before the command sends anything.
   */
  static async compile(expression: string): Promise<JqFilter> {
    const jq = await loadJq()
    // On no input at all, jq compiles the program and runs it zero times: nothing of it runs here,
    // so neither an error at run time nor an endless loop can happen before the command does.
    const {exitCode, stderr} = jq.raw('', expression, ['-c'])
    if (exitCode !== 0) throw usageError(`--jq: ${jqMessage(stderr)}`, 'INVALID_JQ', {expression})
    return new JqFilter(expression, jq)
  }

  /**
   * Run on one JSON document (its text, so that integers beyond 2^53 reach jq exact): each result
   * on a line of its own, as `formatResults` prints them; `tty`: stdout is a terminal.
   */
  apply(document: string, tty: boolean): JqResult {
    const {stdout, stderr, exitCode} = this.#jq.raw(document, this.expression, ['-c'])
    const out = formatResults(stdout, tty)
    if (exitCode === 0) return {out, err: stderr === '' ? '' : `${stderr.replace(/\n$/, '')}\n`}
    return {out, err: '', failure: jqMessage(stderr) || `jq exited with ${exitCode}`}
  }
}

/** jq's message without its own `jq: error …:` prefixes and its count of compile errors. */
export function jqMessage(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/^jq: \d+ compile errors?$/.test(line))
    .map((line) => line.replace(/^jq: (?:error(?: \(at [^)]*\))?|parse error): /, ''))
    .join('\n')
    .trim()
}

/**
 * jq's compact output (one result a line), printed as gh prints the results of --jq: a string raw
 * (on a terminal with its control characters escaped, as every value payctl shows there), null as
 * an empty line, anything else as JSON, compact when piped and indented on a terminal. Numbers stay
 * as jq wrote them (an integer beyond 2^53 exact).
 */
export function formatResults(compact: string, tty: boolean): string {
  if (compact === '') return ''
  return compact
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `${formatResult(line, tty)}\n`)
    .join('')
}

function formatResult(json: string, tty: boolean): string {
  if (json.startsWith('"')) {
    const text = JSON.parse(json) as string
    return tty ? terminalSafe(text, {lines: true, colour: false}) : text
  }
  if (json === 'null') return ''
  return tty && (json.startsWith('{') || json.startsWith('[')) ? indentJson(json) : json
}

/** Compact JSON indented as JSON.stringify(value, null, 2) would, its numbers and strings untouched. */
export function indentJson(compact: string): string {
  let out = ''
  let depth = 0
  const newline = () => `\n${'  '.repeat(depth)}`
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i]!
    if (c === '"') {
      // A string, copied whole: past its escapes to the quote that ends it.
      let end = i + 1
      while (compact[end] !== '"') end += compact[end] === '\\' ? 2 : 1
      out += compact.slice(i, end + 1)
      i = end
    } else if ((c === '{' || c === '[') && (compact[i + 1] === '}' || compact[i + 1] === ']')) {
      out += compact.slice(i, i + 2)
      i++
    } else if (c === '{' || c === '[') {
      depth++
      out += c + newline()
    } else if (c === '}' || c === ']') {
      depth--
      out += newline() + c
    } else if (c === ',') out += `,${newline()}`
    else if (c === ':') out += ': '
    else out += c
  }
  return out
}

/**
 * The error of an expression that failed on what a command printed: the command itself did its
 * work (a record it created exists), which the error says, with the record's id where it has one.
 */
export function jqFailed(filter: JqFilter, message: string, record?: unknown): PayctlError {
  const id = (record as {id?: unknown} | null | undefined)?.id
  const made = typeof id === 'string' && id !== '' ? id : undefined
  return new PayctlError({
    kind: 'output',
    code: 'JQ_FAILED',
    message: `--jq failed on the output: ${message}`,
    details: {expression: filter.expression, ...(made === undefined ? {} : {id: made})},
    suggestions: [
      `The command itself succeeded${made === undefined ? '' : ` (id ${made})`}: only its output was lost to the expression.`,
    ],
  })
}
