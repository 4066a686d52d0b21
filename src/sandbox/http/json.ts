import {hash, randomBytes} from 'node:crypto'
import {
  exactNumber,
  MAX_EXACT_DIGITS,
  MAX_SIGNIFICANT_DIGITS,
  minorToMajorText,
  rawJSON,
} from '../../contract/money/amounts.js'
import type {Currency} from '../../contract/money/currencies.js'

/**
 * An amount for a response body: a plain number while it is a safe integer, otherwise the exact
 * decimal digits spliced into the JSON (wei amounts exceed 2^53 and would be rounded by a double).
 */
export function jsonAmount(value: bigint): number {
  const exact = exactNumber(value)
  return typeof exact === 'bigint' ? (rawJSON(exact.toString()) as number) : exact
}

/** A major-unit amount for a body: its exact decimal digits ("1.30"), never a float computed here. */
export function jsonMajor(minor: bigint, currency: Currency): number {
  return rawJSON(minorToMajorText(minor, currency)) as number
}

// Made once: the request parser compares every long literal with them.
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)

/**
 * JSON with object keys sorted, so two bodies that differ only in key order compare equal. Bigints
 * (amounts beyond 2^53, see parseRequestJson) are written as their exact digits.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return ''
  return (
    flatCanonicalJson(value) ??
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return rawJSON(v.toString())
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
      const sorted: Record<string, unknown> = Object.create(null)
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
      return sorted
    })
  )
}

const ARRAY_INDEX = /^(0|[1-9]\d{0,9})$/

/**
 * canonicalJson of an object whose values are all strings, numbers, booleans or null (most request
 * bodies, every path's parameters), written key by key; undefined for anything else. The same text
 * as the general case, which a stored fingerprint was made with, without a replacer call per value.
 */
function flatCanonicalJson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const object = value as Record<string, unknown>
  if (typeof object.toJSON === 'function') return undefined
  let text = ''
  for (const key of Object.keys(object).sort()) {
    // An object puts keys that are array indexes first, in their order as numbers: the general case.
    if (ARRAY_INDEX.test(key)) return undefined
    const v = object[key]
    const type = typeof v
    if (type !== 'string' && type !== 'number' && type !== 'boolean' && v !== null) return undefined
    text += `${text === '' ? '{' : ','}${JSON.stringify(key)}:${JSON.stringify(v)}`
  }
  return text === '' ? '{}' : `${text}}`
}

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex')
}

// A number literal's parts: sign, whole digits, fraction digits, exponent (5e18, 1.5e20, 12.0).
const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/**
 * How a number literal reads where JSON.parse alone would not give the value written: an integer
 * beyond 2^53 (exact, as bigint), one of more than MAX_EXACT_DIGITS digits ('out of range'), or a
 * fraction no double holds as written ('inexact': more than 15 significant digits, or below the
 * doubles' normal range). Undefined when JSON.parse reads it as written.
 *
 * Decided on the literal's digits, never on the double: a double reads 1e300 as an integer of one
 * significant digit and 1.0000000000000000001 as 1, and either passed for a value it is not.
 */
function readLiteral(source: string): bigint | 'out of range' | 'inexact' | undefined {
  const match = NUMBER_LITERAL.exec(source)
  if (match === null) return undefined
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match
  const digits = whole + fraction
  // Loops, not regular expressions: /0+$/ backtracks quadratically over a long run of zeros.
  let first = 0
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++
  if (first === digits.length) return undefined // a zero, which every double holds
  let end = digits.length
  while (digits.charCodeAt(end - 1) === 0x30) end--
  const significant = end - first
  // The literal is ±digits[first, end) × 10^power.
  const power = digits.length - end - fraction.length + Number(exponent)
  if (power < 0) {
    // A fraction. Up to 15 significant digits, the shortest decimal of its double is the literal.
    if (significant > MAX_SIGNIFICANT_DIGITS) return 'inexact'
    return significant + power <= MIN_NORMAL_EXPONENT ? 'inexact' : undefined
  }
  const length = significant + power
  if (length <= MAX_SIGNIFICANT_DIGITS) return undefined
  if (length > MAX_EXACT_DIGITS) return 'out of range'
  const value = BigInt(sign + digits.slice(first, end) + '0'.repeat(power))
  return value > MAX_SAFE || value < MIN_SAFE ? value : undefined
}

// Below 10^-307 doubles are subnormal and lose digits, down to 0 for 1e-400.
const MIN_NORMAL_EXPONENT = -307

// Bodies without a run of 16 digits (dots included), or an exponent, hold only numbers JSON.parse
// reads as written: skip the exact reading. (A string that looks like one merely takes the slower path.)
const MAY_HOLD_UNSAFE_NUMBER = /[:[,]\s*-?(?:[\d.]{16}|\d+(?:\.\d+)?[eE])/

// A JSON number literal, exactly as the grammar has it (no leading zeros, no bare dot).
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * Parse a request body so that every number is the value its literal denotes, or visibly is not:
 * an integer beyond 2^53 becomes a bigint (amounts of 18- and 24-decimal currencies, wei and
 * yoctoNEAR, exceed it; `JSON.parse` alone would round them); an integer of more than
 * MAX_EXACT_DIGITS digits becomes ±Infinity, as `JSON.parse` reads 1e400; a fraction no double
 * holds as written becomes NaN, which no JSON text denotes. Every number field refuses the last
 * two, so no rounded value reaches an operation.
 *
 * Why not a reviver with `context.source`: it is called for every value of the body and costs ten
 * times the parse itself, so a megabyte of numbers held the event loop for a second. Instead one
 * linear scan finds the literals that need reading, swaps each for a marker string (or for
 * `1e999`, which JSON.parse reads as Infinity), and the fast JSON.parse runs on the result; the
 * markers are then replaced by their values.
 */
export function parseRequestJson(text: string): unknown {
  // Nesting this deep is never a valid request, and would overflow the stack of the recursive code
  // that reads a body later (the idempotency fingerprint): refuse it as malformed.
  if (text.length > MAX_DEPTH && nestsDeeperThan(text, MAX_DEPTH)) {
    throw new SyntaxError(`the body nests arrays and objects more than ${MAX_DEPTH} levels deep`)
  }
  if (!MAY_HOLD_UNSAFE_NUMBER.test(text)) return JSON.parse(text)
  const values: (bigint | number)[] = []
  // Unguessable, so that no string of the body can pass for a marker.
  const nonce = randomBytes(8).toString('hex')
  // The JSON escape in the text; the character it becomes once parsed.
  const tag = `\\u0000${nonce}:`
  const marker = `\u0000${nonce}:`
  let rewritten = ''
  let copied = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // Skip a string, escapes included.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) i++
        else if (d === 0x22) break
      }
      continue
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue
    let end = i + 1
    while (end < text.length && isNumberChar(text.charCodeAt(end))) end++
    const literal = text.slice(i, end)
    const reading = mayBeInexact(literal) && JSON_NUMBER.test(literal) ? readLiteral(literal) : undefined
    if (reading === 'out of range') {
      rewritten += `${text.slice(copied, i)}${c === 0x2d ? '-' : ''}1e999`
      copied = end
    } else if (reading !== undefined) {
      rewritten += `${text.slice(copied, i)}"${tag}${values.length}"`
      values.push(reading === 'inexact' ? Number.NaN : reading)
      copied = end
    }
    i = end - 1
  }
  if (copied === 0) return JSON.parse(text)
  const parsed: unknown = JSON.parse(rewritten + text.slice(copied))
  return values.length === 0 ? parsed : placeValues(parsed, marker, values)
}

/** Put each value back where its marker stands in the parsed body. */
function placeValues(parsed: unknown, marker: string, values: (bigint | number)[]): unknown {
  let placed = 0
  const place = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!value.startsWith(marker)) return value
      placed++
      return values[Number(value.slice(marker.length))]
    }
    if (value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) {
      for (let k = 0; k < value.length; k++) value[k] = place(value[k])
    } else {
      const record = value as Record<string, unknown>
      for (const k of Object.keys(record)) record[k] = place(record[k])
    }
    return value
  }
  const result = place(parsed)
  // A marker left unplaced stood where a number cannot (an object key): the text was not JSON.
  if (placed !== values.length) throw new SyntaxError('Unexpected number in JSON')
  return result
}

function isNumberChar(c: number): boolean {
  // 0-9 . + - e E
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x65 || c === 0x45
}

/** 16 characters or more, or an exponent: the only literals JSON.parse may not read as written. */
function mayBeInexact(literal: string): boolean {
  return literal.length >= 16 || literal.includes('e') || literal.includes('E')
}

/** How deep arrays and objects may nest in a request body. */
export const MAX_DEPTH = 64

/** Whether brackets outside strings nest more than `limit` deep (the text need not be valid JSON). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
