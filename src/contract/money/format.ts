import {type Currency, MINOR_UNITS, minorUnitsOf} from './currency-units.js'

/**
 * How amounts and times read to a person, for every layer alike: the CLI's tables and cards, the
 * sandbox, and the inspector's browser bundle, which imports this file and nothing of zod (the
 * rest of the money module, money.ts, re-exports it beside the schemas).
 */

/** An integer amount (a safe-integer number or a bigint) as bigint; undefined for anything else. */
export function minorFrom(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** An amount as a plain number while a double holds it exactly (|n| ≤ 2^53 - 1); otherwise as it is. */
export function exactNumber(value: bigint): number | bigint {
  return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value
}

/** `minor` with the decimal point `digits` places from the right: 5n, 2 → "0.05"; optionally grouped. */
function decimalText(minor: bigint, digits: number, group: boolean): string {
  const negative = minor < 0n
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0')
  const whole = digits === 0 ? text : text.slice(0, -digits)
  const fraction = digits === 0 ? '' : `.${text.slice(-digits)}`
  return `${negative ? '-' : ''}${group ? grouped(whole) : whole}${fraction}`
}

/**
 * Digits with a comma before each group of three from the right: "1234567" → "1,234,567". A loop
 * rather than a regular expression, which a process compiles on its first amount and again on its
 * second, for every card that shows one.
 */
function grouped(digits: string): string {
  const first = digits.length % 3 || 3
  let out = digits.slice(0, first)
  for (let i = first; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`
  return out
}

/** The major-unit decimal text of an amount in the smallest unit: 65n USD → "0.65", 500n JPY → "500". */
export function minorToMajorText(minor: bigint, currency: Currency): string {
  return decimalText(minor, MINOR_UNITS[currency], false)
}

/**
 * Format an integer amount in the smallest unit as a decimal in major units: 12345 USD → "123.45".
 * A currency payctl does not know is taken to have 2 decimal places.
 */
export function formatMinor(amount: number | bigint, currency: string): string {
  return decimalText(BigInt(amount), minorUnitsOf(currency) ?? 2, true)
}

/** "1,234.50 USD" */
export function formatMoney(amount: number | bigint, currency: string): string {
  return `${formatMinor(amount, currency)} ${currency}`
}

/** A signed amount with its currency: `+40.00 USD`, `-12.50 USD`; empty when either is not one. */
export function signedMoney(amount: unknown, currency: unknown): string {
  const minor = minorFrom(amount)
  if (minor === undefined || typeof currency !== 'string') return ''
  return `${minor > 0n ? '+' : ''}${formatMoney(minor, currency)}`
}

const pad = (n: number) => String(Math.trunc(n)).padStart(2, '0')

/**
 * A time the service recorded, as ISO 8601 in the reader's time zone with its offset (or in UTC
 * with `Z`): `2026-11-25T14:05:09-05:00`. Text that is not a time comes back as it is.
 */
export function zonedTime(iso: string, utc: boolean): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  if (utc) return d.toISOString().replace(/\.\d{3}Z$/, 'Z')
  const offset = -d.getTimezoneOffset()
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.abs(offset) / 60)}:${pad(Math.abs(offset) % 60)}`
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
  return `${date}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${zone}`
}
