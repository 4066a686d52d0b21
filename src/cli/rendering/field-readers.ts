// The modules themselves, not the contract's index: printing a record loads no schema (fast-path/fast-path.ts).

import type {RoundupSettingsRecord} from '../../contract/index.js'
import {formatMoney, majorToMinor, minorFrom} from '../../contract/money/amounts.js'
import {ROUNDUP_CURRENCIES} from '../../contract/money/currencies.js'
import {stringifyExact} from '../../core/exact-json.js'

/**
 * Reading a record for a person when the service promised little of it. A field the interface
 * document leaves "not shown" may be missing or of another type on a service other than payctl's
 * sandbox: these readers turn whatever came into text, and never throw.
 */

/** Shown for a field payctl knows of but the service did not send. */
export const ABSENT = '—'

export type Row = [string, string | undefined]

/** A value as text: strings as they are, numbers and booleans spelt out, objects as compact JSON. */
export function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value)
  return stringifyExact(value)
}

/** A field every record of its kind is expected to have: its text, or — when it is missing. */
export function known(value: unknown): string {
  return text(value) ?? ABSENT
}

/** A string field, or undefined for anything else (for ids used in lookups and joins). */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** An amount in the smallest unit with its currency ("1,234.50 USD"); as it came when it is not one. */
export function money(amount: unknown, currency: unknown): string {
  const unit = typeof currency === 'string' ? currency : undefined
  const minor = minorFrom(amount)
  if (unit !== undefined && minor !== undefined) return formatMoney(minor, unit)
  const raw = text(amount)
  if (raw === undefined) return ABSENT
  return unit === undefined ? raw : `${raw} ${unit}`
}

/** An amount in major units ("1.30 USD"), through the exact smallest unit; as it came otherwise. */
export function majorMoney(amount: unknown, currency: unknown): string {
  const unit = typeof currency === 'string' ? currency : undefined
  if (typeof amount === 'number' && unit && (ROUNDUP_CURRENCIES as readonly string[]).includes(unit)) {
    try {
      return formatMoney(majorToMinor(amount, unit as RoundupSettingsRecord['currency']), unit)
    } catch {
      // not an amount this currency can hold: shown as it came, below
    }
  }
  const raw = text(amount)
  if (raw === undefined) return ABSENT
  return unit === undefined ? raw : `${raw} ${unit}`
}

const AMOUNT_NAMES = new Set([
  'amount',
  'fee',
  'total',
  'available',
  'pending',
  'reserved',
  'limit',
  'minimum',
  'maximum',
])

/**
 * A field that holds an amount of the record's currency: `amount`, `refundedAmount`,
 * `refund_amount`, `fee`, `total`… Plain string tests rather than a regular expression: a card asks
 * once or twice, and a process compiles an expression on its first use and again on its second.
 */
export const isAmountField = (key: string): boolean =>
  AMOUNT_NAMES.has(key) || key.endsWith('Amount') || key.endsWith('_amount')

/**
 * A value for a person: an amount field (isAmountField) of a record with a `currency` in major
 * units with its currency, in the smallest unit (`unit` minor, as most records) or already in major
 * units (the round-up product's records); anything else as text.
 */
export function shown(
  key: string,
  value: unknown,
  currency: unknown,
  unit: 'minor' | 'major' = 'minor',
): string {
  if (currency === undefined || !isAmountField(key) || typeof value === 'boolean') return known(value)
  return unit === 'major' ? majorMoney(value, currency) : money(value, currency)
}

/**
 * The fields of `record` that no row of a card shows, as rows of their own: a service may send more
 * than payctl knows of, and a person should see it, amounts in major units of `currency`.
 */
export function extraRows(
  record: Record<string, unknown>,
  shownFields: readonly string[],
  currency?: unknown,
): Row[] {
  return Object.entries(record)
    .filter(([key, value]) => !shownFields.includes(key) && value !== undefined && value !== null)
    .map(([key, value]) => [
      key.replaceAll('_', ' '),
      typeof value === 'object' ? text(value) : shown(key, value, currency),
    ])
}

/**
 * A record's fields as card rows for a person (an event's data): amounts in major units with their
 * currency (shown), a list of records one row each, `key value` pairs likewise.
 */
export function recordRows(record: Record<string, unknown>, unit: 'minor' | 'major' = 'minor'): Row[] {
  const line = (r: Record<string, unknown>, currency: unknown) =>
    Object.entries(r)
      .filter(([k, v]) => v !== null && v !== undefined && k !== 'currency')
      .map(
        ([k, v]) =>
          `${k} ${isRecord(v) || Array.isArray(v) ? text(v) : shown(k, v, r.currency ?? currency, unit)}`,
      )
      .join(', ')
  return Object.entries(record).flatMap(([key, value]): Row[] => {
    if (value === null || value === undefined) return []
    if (Array.isArray(value) && value.every(isRecord))
      return value.map((item, i) => [`${key} ${i + 1}`, line(item, record.currency)])
    if (isRecord(value)) return [[key, line(value, record.currency)]]
    return [[key, shown(key, value, record.currency, unit)]]
  })
}
