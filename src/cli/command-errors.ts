import {formatMoney} from '../contract/money/amounts.js'
import {PayctlError} from '../core/errors.js'
import {stringifyExact} from '../core/exact-json.js'
import {paint, terminalSafe} from './rendering/terminal.js'
import type {OutputStream} from './runtime/io.js'

/** Turn anything thrown inside a command into the one error type, with an exit code. */
export function toPayctlError(err: unknown): PayctlError {
  if (err instanceof PayctlError) {
    // oclif puts "Parsing --flag" before the message of an error a flag's parser threw.
    err.message = err.message.replace(/^Parsing --[\w-]+ *\n\t/, '')
    return err
  }
  const e = err as {name?: string; message?: string; oclif?: {exit?: number}; code?: string}
  if (e?.name === 'ExitPromptError' || e?.name === 'AbortPromptError') {
    return new PayctlError({kind: 'interrupted', code: 'INTERRUPTED', message: 'interrupted', cause: err})
  }
  if (e?.oclif?.exit === 2 || /Parse|Flag|Args|Validation/.test(e?.name ?? '')) {
    return new PayctlError({
      kind: 'usage',
      code: 'USAGE',
      message: (e.message ?? 'invalid usage').trim(),
      cause: err,
    })
  }
  return new PayctlError({
    kind: 'api',
    code: 'UNEXPECTED',
    message: e?.message ?? String(err),
    cause: err,
  })
}

/** Details that hold an amount in the smallest unit of the error's `currency`. */
const AMOUNT_DETAILS = new Set([
  'amount',
  'required',
  'available',
  'minimum',
  'maximum',
  'limit',
  'remaining',
])

const isInteger = (v: unknown): v is number | bigint =>
  typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))

/**
 * The human form, for stderr: `CODE: message`, then details, request id and suggestions. Each part
 * may echo the service (an id it was asked for, a label), so each is escaped on its own, and only a
 * message payctl or its parser wrote keeps its line breaks: one from the service (it has a status)
 * could otherwise add lines that pass for payctl's, a suggestion of a command to run among them.
 */
export function renderError(err: PayctlError, stream: Pick<OutputStream, 'colour'>): string {
  const message = terminalSafe(err.message, {lines: err.status === undefined})
  const lines = [`${paint(['red', 'bold'], terminalSafe(err.code), stream)}: ${message}`]
  if (err.details && Object.keys(err.details).length > 0) {
    const currency = err.details.currency
    for (const [k, v] of Object.entries(err.details)) {
      // An amount beside its currency reads as major units: say so, with the smallest unit after.
      const money = typeof currency === 'string' && AMOUNT_DETAILS.has(k) && isInteger(v)
      const shown = money ? `${formatMoney(BigInt(v), currency)} (${v} in the smallest unit)` : undefined
      const value = terminalSafe(shown ?? (typeof v === 'string' ? v : stringifyExact(v)))
      lines.push(`  ${paint('dim', terminalSafe(k), stream)}: ${value}`)
    }
  }
  if (err.requestId) lines.push(`  ${paint('dim', 'request id', stream)}: ${terminalSafe(err.requestId)}`)
  for (const s of err.suggestions) lines.push(paint('cyan', s, stream))
  return lines.join('\n')
}
