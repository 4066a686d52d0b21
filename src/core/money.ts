import {currencySuffix, exactNumber, parseMinor, splitAmount} from '../contract/index.js'
import {usageError} from './errors.js'

/**
 * Parse an amount into the currency's smallest unit, exactly: a bare integer is already in the
 * smallest unit ("1234" → 1234); a decimal with the currency appended is in major units
 * ("12.34USD", "12.34 USD" → 1234). Never goes through floating point; amounts beyond 2^53 come back
 * as bigint, so that they are sent as exact digits. Text that is no amount is an INVALID_AMOUNT
 * usage error.
 */
export function parseAmount(
  text: string,
  currency?: string,
): {amount: number | bigint; currency: string | undefined} {
  let parsed: ReturnType<typeof parseMinor>
  try {
    parsed = parseMinor(text, currency)
  } catch (err) {
    if (err instanceof RangeError) throw usageError(err.message, 'INVALID_AMOUNT')
    throw err
  }
  return {amount: exactNumber(parsed.minor), currency: parsed.currency}
}

/**
 * Whether amount text is a decimal without its currency ("10.50"). An amount is refused in that
 * form wherever nothing else says its unit (no --decimal): "10.00" taken as the smallest unit would
 * be a hundredth of what was meant, and taken as major units it would mean something else than
 * "10" beside it.
 */
export function hasBareDecimals(text: string): boolean {
  const parts = splitAmount(text)
  return parts?.fraction !== undefined && parts.suffix === undefined
}

/**
 * Whether text is a plain decimal in major units ("5", "4.35"), the form of the round-up API's
 * amounts: sent as the JSON number it spells, so at most 15 significant digits, which a JSON number
 * carries exactly.
 */
export function isPlainMajor(text: string): boolean {
  const trimmed = text.trim()
  return /^\d{1,15}(\.\d{1,15})?$/.test(trimmed) && trimmed.replace(/\D/g, '').replace(/^0+/, '').length <= 15
}

/**
 * A decimal in major units, with its currency appended or not ("4.35", "4.35USD"), as the
 * round-up flags and fixtures take it: its digits, value and the currency it names; undefined
 * when it is not one.
 */
export function readMajor(
  text: string,
): {digits: string; value: number; currency: string | undefined} | undefined {
  const suffix = currencySuffix(text)
  const digits = (suffix === undefined ? text : text.trimEnd().slice(0, -suffix.length)).trim()
  if (!isPlainMajor(digits)) return undefined
  return {digits, value: Number(digits), currency: suffix?.toUpperCase()}
}
