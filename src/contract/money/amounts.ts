import {type Currency, MINOR_UNITS, minorUnitsOf} from './currencies.js'

export {
  exactNumber,
  formatMinor,
  formatMoney,
  minorFrom,
  minorToMajorText,
  signedMoney,
  zonedTime,
} from './format.js'

/**
 * Money arithmetic, in one place for the client, the CLI and the sandbox alike: amounts are integers
 * in a currency's smallest unit, converted to and from decimal text exactly, with bigint and never a
 * float. Nothing here knows an error type of its own, nor zod (the schemas of amounts are in fields.ts,
 * so that what prints an amount loads no schema library): what cannot be read comes back as undefined or
 * as a RangeError whose message says why, and each caller turns that into its own error.
 */

/**
 * JSON.rawJSON: `text` spliced as is into what JSON.stringify writes, which is how an amount beyond
 * 2^53 is written exactly. ES2025, in Node 24 but not yet in TypeScript's es2024 lib.
 */
export const rawJSON = (JSON as unknown as {rawJSON(text: string): unknown}).rawJSON

/**
 * Most digits an exact integer of a request body may have. Far above any amount (a yoctoNEAR balance
 * of every NEAR in existence has 33), and low enough that a body packed with `1e400` literals or one
 * literal of a million digits stays cheap to read: the sandbox reads a longer integer as Infinity,
 * as `JSON.parse` reads 1e400, which no amount field accepts.
 */
export const MAX_EXACT_DIGITS = 80

/** A JSON number holds at most this many significant decimal digits exactly. */
export const MAX_SIGNIFICANT_DIGITS = 15

/**
 * The exact amount in the smallest unit of a major-unit JSON number (4.35 USD → 435n). The number is
 * read as its shortest round-trip decimal, which is the literal the client wrote whenever that has at
 * most 15 significant digits; longer ones, and more decimals than the currency has, are refused with
 * a RangeError whose message says why. Never multiplies a float.
 */
export function majorToMinor(value: number, currency: Currency): bigint {
  if (!Number.isFinite(value)) throw new RangeError('Must be a finite number')
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value))
  if (match === null) throw new RangeError('Must be a decimal number')
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match
  const mantissa = whole + fraction
  const significant = mantissa.replace(/^0+/, '').replace(/0+$/, '')
  if (significant.length > MAX_SIGNIFICANT_DIGITS) {
    throw new RangeError(
      `Has more than ${MAX_SIGNIFICANT_DIGITS} significant digits, more than a JSON number carries exactly`,
    )
  }
  // Where the decimal point falls in `mantissa`, once the exponent is applied.
  const point = whole.length + Number(exponent)
  const padded = point > mantissa.length ? mantissa.padEnd(point, '0') : mantissa
  const intDigits = point <= 0 ? '0' : padded.slice(0, point)
  const fracDigits = (point < 0 ? '0'.repeat(-point) + padded : padded.slice(Math.max(point, 0))).replace(
    /0+$/,
    '',
  )
  const decimals = MINOR_UNITS[currency]
  if (fracDigits.length > decimals) {
    throw new RangeError(
      decimals === 0
        ? `${currency} has no decimal places`
        : `${currency} has ${decimals} decimal places; this has ${fracDigits.length}`,
    )
  }
  const minor = BigInt(intDigits + fracDigits.padEnd(decimals, '0'))
  return sign === '-' ? -minor : minor
}

/** The pieces of an amount typed as text: "-1_234.50 usd" → sign "-", whole "1_234", fraction "50", suffix "usd". */
export interface AmountParts {
  sign: '' | '-'
  whole: string
  fraction: string | undefined
  suffix: string | undefined
}

/**
 * Split amount text into its pieces: an integer, optionally with a fraction and a 3-5 letter currency
 * code after it; blanks around and before the code are allowed, as are `_` between digits. Undefined
 * when the text is not one.
 */
export function splitAmount(text: string): AmountParts | undefined {
  const m = /^\s*(-?)(\d[\d_]*)(?:\.(\d+))?\s*([A-Za-z]{3,5})?\s*$/.exec(text)
  if (!m) return undefined
  const [, sign = '', whole = '', fraction, suffix] = m
  return {sign: sign as AmountParts['sign'], whole, fraction, suffix}
}

/** The 3-5 letter currency code at the end of amount text ("12.34USD" → "USD"), as typed. */
export function currencySuffix(text: string): string | undefined {
  return /([A-Za-z]{3,5})\s*$/.exec(text)?.[1]
}

/**
 * Read amount text into the currency's smallest unit, exactly: a bare integer is already in the
 * smallest unit ("1234" → 1234n); a decimal with the currency appended is in major units
 * ("12.34USD", "12.34 USD" → 1234n). `currency`, when given, is the one the amount must be in. What
 * cannot be read is refused with a RangeError whose message quotes the text and says why.
 */
export function parseMinor(text: string, currency?: string): {minor: bigint; currency: string | undefined} {
  const parts = splitAmount(text)
  if (!parts) {
    throw new RangeError(
      `"${text}" is not an amount: use an integer in the smallest unit (1234) or a decimal with its currency (12.34USD)`,
    )
  }
  const {sign, fraction} = parts
  const code = parts.suffix?.toUpperCase()
  if (code && currency && code !== currency.toUpperCase()) {
    throw new RangeError(`amount "${text}" is in ${code} but the currency is ${currency.toUpperCase()}`)
  }
  const cur = code ?? currency?.toUpperCase()
  const whole = parts.whole.replaceAll('_', '')
  let minor: bigint
  if (fraction === undefined && !code) {
    minor = BigInt(whole)
  } else {
    const digits = cur === undefined ? undefined : minorUnitsOf(cur)
    if (digits === undefined) {
      throw new RangeError(
        `a decimal amount needs a supported currency to convert it exactly (got ${cur ?? 'none'})`,
      )
    }
    const frac = fraction ?? ''
    if (frac.length > digits) {
      throw new RangeError(`${cur} has ${digits} decimal places; "${text}" has ${frac.length}`)
    }
    minor = BigInt(whole + frac.padEnd(digits, '0'))
  }
  return {minor: sign ? -minor : minor, currency: cur}
}
