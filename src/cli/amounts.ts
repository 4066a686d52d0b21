import {currencySuffix} from '../contract/index.js'
import {hasBareDecimals, parseAmount, usageError} from '../core/index.js'

/**
 * The amount of an `--amount` flag in the smallest unit: an integer as is, a decimal with its
 * currency appended, or (with --decimal) a decimal in major units of `currency`.
 */
export function amountFrom(text: string, currency: string | undefined, decimal: boolean): number | bigint {
  const amount = parsedAmount(text, currency, decimal)
  // Checked for every form: `--amount -5 --decimal` must not reach the service as -500.
  if (amount <= 0) throw usageError('--amount must be greater than zero', 'INVALID_AMOUNT')
  return amount
}

function parsedAmount(text: string, currency: string | undefined, decimal: boolean): number | bigint {
  if (decimal) {
    if (!currency)
      throw usageError('--decimal needs --currency to know how many decimals to use', 'MISSING_FLAG')
    if (/[A-Za-z]/.test(text)) return parseAmount(text, currency).amount
    return parseAmount(`${text}${currency}`, currency).amount
  }
  if (hasBareDecimals(text)) {
    throw usageError(
      `--amount "${text}" has decimals: give the smallest unit (1234), append the currency (${text}${currency ?? 'USD'}), or pass --decimal`,
      'INVALID_AMOUNT',
    )
  }
  return parseAmount(text, currency).amount
}

/** The currency given by the flag or implied by a suffixed amount ("12.34USD"). */
export function currencyFrom(flag: string | undefined, amountText: string | undefined): string | undefined {
  if (flag) return flag.toUpperCase()
  const suffix = amountText ? currencySuffix(amountText) : undefined
  return suffix?.toUpperCase()
}
