import {exactNumber, parseMinor} from '../contract/index.js'
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
