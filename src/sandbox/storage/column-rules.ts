import type {SQLOutputValue} from 'node:sqlite'
import {MAX_EXACT_DIGITS} from '../../contract/money/amounts.js'
import {SUPPORTED_CURRENCIES} from '../../contract/money/currencies.js'

/**
 * What each column of the data file holds, as the sandbox itself writes it: declared beside the
 * table (`Table.columns`), and checked on every row a snapshot file brings in before any of it is
 * restored (docs/sandbox.md#what-a-snapshot-file-may-hold). A file's rows are somebody's upload: an
 * amount that is not an integer would fail every request that reads it, a wallet id of another
 * partner would move that partner's money. Each rule is a condition SQLite checks on the rows.
 */
export type ColumnRule =
  /** An id the sandbox issues: one of its prefixes and 24 lowercase hex digits. */
  | {kind: 'id'; prefixes: readonly string[]}
  /**
   * The key of a row of `table` (its `key` column, default `id`) of the same partner, in the same
   * file; `prefix` is the shape of that key when it is one of the sandbox's ids.
   */
  | {kind: 'ref'; table: string; key: string; prefix?: string}
  /** An integer in the currency's smallest unit, as decimal text of at most MAX_EXACT_DIGITS digits. */
  | {kind: 'amount'; signed: boolean}
  /** An ISO 8601 instant in UTC, as the sandbox writes every time: `2026-11-28T22:16:25.123Z`. */
  | {kind: 'time'}
  /** A whole number between min and max (epoch milliseconds, counts, flags). */
  | {kind: 'int'; min: number; max: number}
  /** A JSON document of at most `bytes` bytes, of the given type. */
  | {kind: 'json'; type: 'object' | 'array' | 'any'; bytes: number}
  /** One of the currencies the sandbox supports. */
  | {kind: 'currency'}
  /** One of these values. */
  | {kind: 'oneOf'; values: readonly string[]}
  /** Text of at most `max` characters (`pattern`, a GLOB pattern, when it has a shape). */
  | {kind: 'text'; max: number; pattern?: string}
  /** A code or a secret: `prefix`, then `min` to `max` characters of the GLOB class `chars`. */
  | {kind: 'code'; prefix: string; chars: string; min: number; max: number}

/** Every column of a table and its rule. */
export type ColumnRules = Record<string, ColumnRule>

/** What the rows of a table hold, as a restore checks a snapshot file's (`Table` extends it). */
export interface RowRules {
  /**
   * What each column holds, but the partner column: the records it names and the shape of its
   * values. Every column of a partner's table has one (test/unit/column-rules.test.ts).
   */
  columns?: ColumnRules
  /**
   * What a row must meet beyond each column's rule, as SQL on the row `r` (tables by their names): a
   * pair of columns set together, a record whose table another column names.
   */
  checks?: readonly {what: string; sql: string}[]
  /** The API's caps: at most `max` rows for each value of the column `per`. */
  limits?: readonly {per: string; max: number}[]
  /**
   * A check in code of each row, for a rule the feature keeps in code (where a webhook may go, given
   * the sandbox's `exposed` setting): why the row is refused, or undefined.
   */
  verify?: (row: Record<string, SQLOutputValue>, settings: {exposed: boolean}) => string | undefined
}

/** The shapes every feature's columns are declared with. */
/** The highest row number a restored row may have: far below 2^53, past which a row cannot be read back. */
export const MAX_SEQ = 2 ** 48

export const column = {
  id: (...prefixes: string[]): ColumnRule => ({kind: 'id', prefixes}),
  /** A row number (INTEGER PRIMARY KEY): what lists page by. */
  seq: {kind: 'int', min: 1, max: MAX_SEQ} as ColumnRule,
  ref: (table: string, prefix?: string, key = 'id'): ColumnRule => ({kind: 'ref', table, key, prefix}),
  amount: {kind: 'amount', signed: false} as ColumnRule,
  signedAmount: {kind: 'amount', signed: true} as ColumnRule,
  time: {kind: 'time'} as ColumnRule,
  int: (min: number, max: number): ColumnRule => ({kind: 'int', min, max}),
  /** Epoch milliseconds of a date between 1970 and 2400. */
  ms: {kind: 'int', min: 0, max: 13_569_465_600_000} as ColumnRule,
  flag: {kind: 'int', min: 0, max: 1} as ColumnRule,
  json: (type: 'object' | 'array' | 'any', bytes: number): ColumnRule => ({kind: 'json', type, bytes}),
  currency: {kind: 'currency'} as ColumnRule,
  oneOf: (values: readonly string[]): ColumnRule => ({kind: 'oneOf', values}),
  text: (max: number, pattern?: string): ColumnRule => ({kind: 'text', max, pattern}),
  code: (prefix: string, chars: string, min: number, max = min): ColumnRule => ({
    kind: 'code',
    prefix,
    chars,
    min,
    max,
  }),
} as const

const HEX24 = '[0-9a-f]'.repeat(24)
const DIGITS = `(length(X) BETWEEN 1 AND ${MAX_EXACT_DIGITS} AND X NOT GLOB '*[^0-9]*')`

const quote = (value: string): string => `'${value.replaceAll("'", "''")}'`

/**
 * The SQL condition a non-null value `x` (an SQL expression) of a column must meet, without the
 * partner a reference must share (PartnerChecks adds it). NULL passes: the table's own NOT NULL says
 * where a value is required.
 */
export function conditionOf(rule: ColumnRule, x: string): string {
  const on = (sql: string) => `(${x} IS NULL OR (${sql.replaceAll('X', x)}))`
  switch (rule.kind) {
    case 'id':
      return on(
        `typeof(X) = 'text' AND (${rule.prefixes.map((p) => `X GLOB ${quote(`${p}_${HEX24}`)}`).join(' OR ')})`,
      )
    case 'ref':
      return rule.prefix === undefined
        ? on(`typeof(X) = 'text' AND length(X) BETWEEN 1 AND 255`)
        : on(`typeof(X) = 'text' AND X GLOB ${quote(`${rule.prefix}_${HEX24}`)}`)
    case 'amount':
      return on(
        rule.signed
          ? `typeof(X) = 'text' AND (${DIGITS} OR (X GLOB '-[0-9]*' AND ${DIGITS.replaceAll('X', 'substr(X, 2)')}))`
          : `typeof(X) = 'text' AND ${DIGITS}`,
      )
    case 'time':
      return on(
        `typeof(X) = 'text' AND X GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%fZ', X) = X`,
      )
    case 'int':
      return on(`typeof(X) = 'integer' AND X BETWEEN ${rule.min} AND ${rule.max}`)
    case 'json':
      return on(
        `typeof(X) = 'text' AND octet_length(X) <= ${rule.bytes} AND json_valid(X)${rule.type === 'any' ? '' : ` AND json_type(X) = '${rule.type}'`}`,
      )
    case 'currency':
      return on(`X IN (${SUPPORTED_CURRENCIES.map(quote).join(', ')})`)
    case 'oneOf':
      return on(`X IN (${rule.values.map(quote).join(', ')})`)
    case 'text':
      return on(
        `typeof(X) = 'text' AND length(X) <= ${rule.max}${rule.pattern === undefined ? '' : ` AND X GLOB ${quote(rule.pattern)}`}`,
      )
    case 'code': {
      const from = rule.prefix.length + 1
      return on(
        `typeof(X) = 'text' AND substr(X, 1, ${rule.prefix.length}) = ${quote(rule.prefix)} AND length(X) BETWEEN ${from - 1 + rule.min} AND ${from - 1 + rule.max} AND substr(X, ${from}) NOT GLOB ${quote(`*[^${rule.chars}]*`)}`,
      )
    }
  }
}

/** What a rule asks for, as a refusal names it. */
export function describeRule(rule: ColumnRule): string {
  switch (rule.kind) {
    case 'id':
      return `an id ${rule.prefixes.map((p) => `${p}_`).join(' or ')} and 24 hex digits`
    case 'ref':
      return `the ${rule.key} of one of the partner's own ${rule.table} in the file`
    case 'amount':
      return `${rule.signed ? 'a signed' : 'an'} integer amount of at most ${MAX_EXACT_DIGITS} digits, as text`
    case 'time':
      return 'an ISO 8601 time such as 2026-01-31T12:00:00.000Z'
    case 'int':
      return `a whole number from ${rule.min} to ${rule.max}`
    case 'json':
      return `a JSON ${rule.type === 'any' ? 'value' : rule.type} of at most ${rule.bytes} bytes`
    case 'currency':
      return 'a supported currency'
    case 'oneOf':
      return `one of ${rule.values.join(', ')}`
    case 'text':
      return `text of at most ${rule.max} characters${rule.pattern === undefined ? '' : ` shaped ${rule.pattern}`}`
    case 'code':
      return `${rule.prefix} and ${rule.min === rule.max ? rule.min : `${rule.min} to ${rule.max}`} characters of [${rule.chars}]`
  }
}
