import {hash} from 'node:crypto'

// JSON.rawJSON (ES2025) is in Node 24 but not yet in TypeScript's es2024 lib.
const rawJSON = (JSON as unknown as {rawJSON(text: string): unknown}).rawJSON

/**
 * An amount for a response body: a plain number while it is a safe integer, otherwise the exact
 * decimal digits spliced into the JSON (wei amounts exceed 2^53 and would be rounded by a double).
 */
export function jsonAmount(value: bigint): number {
  if (value <= MAX_SAFE && value >= MIN_SAFE) return Number(value)
  return rawJSON(value.toString()) as number
}

// Made once: this runs for every amount of every answer and event.
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

/** The exact integer a JSON number literal denotes, or undefined when it has a fractional part. */
function exactInteger(source: string): bigint | undefined {
  const match = NUMBER_LITERAL.exec(source)
  if (match === null) return undefined
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match
  const exponent = Number(exponentText)
  // Digits with the decimal point removed, and where the point now sits from the right.
  let digits = (whole + fraction).replace(/^0+(?=\d)/, '')
  const scale = fraction.length - exponent
  if (scale > 0) {
    const dropped = digits.slice(Math.max(0, digits.length - scale))
    if (/[1-9]/.test(dropped)) return undefined
    digits = digits.slice(0, Math.max(0, digits.length - scale)) || '0'
  } else if (scale < 0) {
    // Absurd exponents would allocate huge strings; no amount needs more than a few hundred digits.
    if (-scale > 400) return undefined
    digits += '0'.repeat(-scale)
  }
  return BigInt(sign + digits)
}

// Bodies without a number of 16 digits or more, or with an exponent, hold only safe numbers: skip
// the slower reviver. (A string that looks like one merely takes the slow path.)
const MAY_HOLD_UNSAFE_NUMBER = /[:[,]\s*-?(?:\d{16}|\d+(?:\.\d+)?[eE])/

/**
 * Parse a request body, turning integers that a double cannot hold exactly into bigint. Amounts of
 * 18- and 24-decimal currencies (wei, yoctoNEAR) exceed 2^53; `JSON.parse` alone would round them.
 */
export function parseRequestJson(text: string): unknown {
  // Nesting this deep is never a valid request, and would overflow the stack of the recursive code
  // that reads a body later (the idempotency fingerprint): refuse it as malformed.
  if (text.length > MAX_DEPTH && nestsDeeperThan(text, MAX_DEPTH)) {
    throw new SyntaxError(`the body nests arrays and objects more than ${MAX_DEPTH} levels deep`)
  }
  if (!MAY_HOLD_UNSAFE_NUMBER.test(text)) return JSON.parse(text)
  // The reviver's `context.source` (ES2025) is in Node 24 but not yet in TypeScript's lib.
  const reviver = (_key: string, value: unknown, context?: {source?: string}): unknown => {
    if (typeof value !== 'number' || Number.isSafeInteger(value) || context?.source === undefined)
      return value
    return exactInteger(context.source) ?? value
  }
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown)
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
