import {hash, randomBytes} from 'node:crypto'
import type {Currency} from '../contract/currencies.js'
import {exactNumber, MAX_EXACT_DIGITS, minorToMajorText, rawJSON} from '../contract/money.js'

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
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return rawJSON(v.toString())
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    const sorted: Record<string, unknown> = Object.create(null)
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
    return sorted
  })
}

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex')
}

// An integer literal, possibly with a fraction and an exponent (5e18, 1.5e20, 12.0).
const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/**
 * The exact integer a JSON number literal denotes, or undefined when it has a fractional part or
 * more than MAX_EXACT_DIGITS digits.
 */
function exactInteger(source: string): bigint | undefined {
  // Checked before any work: the regular expression and BigInt both cost time in the literal's length.
  if (source.length > 2 * MAX_EXACT_DIGITS) return undefined
  const match = NUMBER_LITERAL.exec(source)
  if (match === null) return undefined
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match
  const exponent = Number(exponentText)
  if (exponent > MAX_EXACT_DIGITS) return undefined
  // Digits with the decimal point removed, and where the point now sits from the right.
  let digits = (whole + fraction).replace(/^0+(?=\d)/, '')
  const scale = fraction.length - exponent
  if (scale > 0) {
    const dropped = digits.slice(Math.max(0, digits.length - scale))
    if (/[1-9]/.test(dropped)) return undefined
    digits = digits.slice(0, Math.max(0, digits.length - scale)) || '0'
  } else if (scale < 0) {
    digits += '0'.repeat(-scale)
  }
  if (digits.length > MAX_EXACT_DIGITS) return undefined
  return BigInt(sign + digits)
}

// Bodies without a number of 16 digits or more, or with an exponent, hold only safe numbers: skip
// the exact reading. (A string that looks like one merely takes the slower path.)
const MAY_HOLD_UNSAFE_NUMBER = /[:[,]\s*-?(?:\d{16}|\d+(?:\.\d+)?[eE])/

// A JSON number literal, exactly as the grammar has it (no leading zeros, no bare dot).
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * Parse a request body, turning integers that a double cannot hold exactly into bigint. Amounts of
 * 18- and 24-decimal currencies (wei, yoctoNEAR) exceed 2^53; `JSON.parse` alone would round them.
 *
 * Why not a reviver with `context.source`: it is called for every value of the body and costs ten
 * times the parse itself, so a megabyte of numbers held the event loop for a second. Instead one
 * linear scan finds the literals that need exact reading, swaps each for a marker string, and the
 * fast JSON.parse runs on the result; the markers are then replaced by their bigints.
 */
export function parseRequestJson(text: string): unknown {
  // Nesting this deep is never a valid request, and would overflow the stack of the recursive code
  // that reads a body later (the idempotency fingerprint): refuse it as malformed.
  if (text.length > MAX_DEPTH && nestsDeeperThan(text, MAX_DEPTH)) {
    throw new SyntaxError(`the body nests arrays and objects more than ${MAX_DEPTH} levels deep`)
  }
  if (!MAY_HOLD_UNSAFE_NUMBER.test(text)) return JSON.parse(text)
  const exact: bigint[] = []
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
    const value = mayBeUnsafe(literal) && JSON_NUMBER.test(literal) ? exactInteger(literal) : undefined
    if (value !== undefined && (value > MAX_SAFE || value < MIN_SAFE)) {
      rewritten += `${text.slice(copied, i)}"${tag}${exact.length}"`
      exact.push(value)
      copied = end
    }
    i = end - 1
  }
  if (exact.length === 0) return JSON.parse(text)
  const parsed: unknown = JSON.parse(rewritten + text.slice(copied))
  let placed = 0
  const place = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!value.startsWith(marker)) return value
      placed++
      return exact[Number(value.slice(marker.length))]
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
  if (placed !== exact.length) throw new SyntaxError('Unexpected number in JSON')
  return result
}

function isNumberChar(c: number): boolean {
  // 0-9 . + - e E
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x65 || c === 0x45
}

/** 16 digits or more, or an exponent: the only literals that may denote an integer beyond 2^53. */
function mayBeUnsafe(literal: string): boolean {
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
