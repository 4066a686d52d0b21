import type {Currency} from './currency-units.js'
import {FIAT_CURRENCIES, MINOR_UNITS} from './currency-units.js'

export {
  CRYPTO_CURRENCIES,
  type Currency,
  FIAT_CURRENCIES,
  isSupportedCurrency,
  MINOR_UNITS,
  minorUnitsOf,
  SUPPORTED_CURRENCIES,
} from './currency-units.js'

/** Round-ups are spare change, so they are kept in a fiat currency. */
export const ROUNDUP_CURRENCIES = FIAT_CURRENCIES

/** How many smallest units make one major unit: 100n for USD, 1n for JPY, 10n ** 18n for ETH. */
export function minorPerMajor(currency: Currency): bigint {
  return 10n ** BigInt(MINOR_UNITS[currency])
}

/**
 * Fixed sandbox exchange rates: the value of one major unit of each currency in millionths of a US
 * dollar. These are round, made-up figures so that limits and minimums are predictable in tests;
 * they are not market rates. Documented in docs/sandbox.md.
 */
export const USD_VALUE_MICROS: Record<Currency, bigint> = {
  USD: 1_000_000n,
  EUR: 1_100_000n,
  GBP: 1_250_000n,
  CAD: 750_000n,
  AUD: 650_000n,
  JPY: 6_500n,
  CHF: 1_100_000n,
  CNY: 140_000n,
  INR: 12_000n,
  BRL: 200_000n,
  MXN: 50_000n,
  BTC: 50_000_000_000n,
  ETH: 2_500_000_000n,
  SOL: 100_000_000n,
  USDC: 1_000_000n,
  USDT: 1_000_000n,
  MATIC: 500_000n,
  AVAX: 25_000_000n,
  NEAR: 4_000_000n,
}

/**
 * Convert a US-dollar amount in cents into `currency`'s smallest unit at the sandbox rates, in exact
 * integer arithmetic. `floor` suits ceilings (a limit never exceeds its USD value), `ceil` suits
 * floors (a minimum never falls below its USD value).
 */
export function usdCentsToMinor(cents: bigint, currency: Currency, rounding: 'floor' | 'ceil'): bigint {
  // minor = cents / 100 USD * 1e6 micros / rate * 10^digits
  const numerator = cents * 10_000n * minorPerMajor(currency)
  const denominator = USD_VALUE_MICROS[currency]
  const quotient = numerator / denominator
  return rounding === 'ceil' && quotient * denominator !== numerator ? quotient + 1n : quotient
}

/**
 * The value in US cents of `amount` smallest units of `currency`, at the sandbox rates: rounded down
 * by default, `ceil` for what is owed (a debt never shrinks in the conversion).
 */
export function minorToUsdCents(
  amount: bigint,
  currency: Currency,
  rounding: 'floor' | 'ceil' = 'floor',
): bigint {
  const numerator = amount * USD_VALUE_MICROS[currency]
  const denominator = 10_000n * minorPerMajor(currency)
  const quotient = numerator / denominator
  return rounding === 'ceil' && quotient * denominator !== numerator ? quotient + 1n : quotient
}

/** Default limits of a new wallet, in US cents: 10,000.00 per transaction, 25,000.00 a day, 100,000.00 a month. */
export const DEFAULT_WALLET_LIMITS_USD_CENTS = {
  transaction: 1_000_000n,
  daily: 2_500_000n,
  monthly: 10_000_000n,
} as const

/** Default limits of a new wallet in `currency`'s smallest unit (the USD defaults at the sandbox rates). */
export function defaultWalletLimits(currency: Currency): {
  transaction: bigint
  daily: bigint
  monthly: bigint
} {
  return {
    transaction: usdCentsToMinor(DEFAULT_WALLET_LIMITS_USD_CENTS.transaction, currency, 'floor'),
    daily: usdCentsToMinor(DEFAULT_WALLET_LIMITS_USD_CENTS.daily, currency, 'floor'),
    monthly: usdCentsToMinor(DEFAULT_WALLET_LIMITS_USD_CENTS.monthly, currency, 'floor'),
  }
}
