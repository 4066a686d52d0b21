import {type Currency, isSupportedCurrency, MINOR_UNITS} from '../contract/index.js'
import {usageError} from './errors.js'

/** Format an integer amount in the smallest unit as a decimal in major units: 12345 USD → "123.45". */
export function formatMinor(amount: number | bigint, currency: string): string {
  const digits = isSupportedCurrency(currency) ? MINOR_UNITS[currency as Currency] : 2
  const value = BigInt(amount)
  const negative = value < 0n
  const abs = negative ? -value : value
  const text = abs.toString().padStart(digits + 1, '0')
  const whole = digits === 0 ? text : text.slice(0, -digits)
  const fraction = digits === 0 ? '' : `.${text.slice(-digits)}`
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${negative ? '-' : ''}${grouped}${fraction}`
}

/** "1,234.50 USD" */
export function formatMoney(amount: number | bigint, currency: string): string {
  return `${formatMinor(amount, currency)} ${currency}`
}

/**
 * Parse an amount into the currency's smallest unit, exactly: a bare integer is already in the
 * smallest unit ("1234" → 1234); a decimal with the currency appended is in major units
 * ("12.34USD", "12.34 USD" → 1234). Never goes through floating point; amounts beyond 2^53 come back
 * as bigint.
 */
export function parseAmount(
  text: string,
  currency?: string,
): {amount: number | bigint; currency: string | undefined} {
  const m = /^\s*(-?)(\d[\d_]*)(?:\.(\d+))?\s*([A-Za-z]{3,5})?\s*$/.exec(text)
  if (!m)
    throw usageError(
      `"${text}" is not an amount: use an integer in the smallest unit (1234) or a decimal with its currency (12.34USD)`,
      'INVALID_AMOUNT',
    )
  const [, sign, wholeRaw = '', fraction, suffix] = m
  const code = suffix?.toUpperCase()
  if (code && currency && code !== currency.toUpperCase()) {
    throw usageError(
      `amount "${text}" is in ${code} but the currency is ${currency.toUpperCase()}`,
      'INVALID_AMOUNT',
    )
  }
  const cur = code ?? currency?.toUpperCase()
  const whole = wholeRaw.replaceAll('_', '')
  let minor: bigint
  if (fraction === undefined && !code) {
    minor = BigInt(whole)
  } else {
    if (!cur || !isSupportedCurrency(cur)) {
      throw usageError(
        `a decimal amount needs a supported currency to convert it exactly (got ${cur ?? 'none'})`,
        'INVALID_AMOUNT',
      )
    }
    const digits = MINOR_UNITS[cur]
    const frac = fraction ?? ''
    if (frac.length > digits) {
      throw usageError(`${cur} has ${digits} decimal places; "${text}" has ${frac.length}`, 'INVALID_AMOUNT')
    }
    minor = BigInt(whole + frac.padEnd(digits, '0'))
  }
  if (sign) minor = -minor
  // Beyond 2^53 a double is no longer exact: such amounts stay bigint and are sent as exact digits.
  const safe = minor <= BigInt(Number.MAX_SAFE_INTEGER) && minor >= -BigInt(Number.MAX_SAFE_INTEGER)
  return {amount: safe ? Number(minor) : minor, currency: cur}
}
