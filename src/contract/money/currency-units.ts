/**
 * The currencies the service supports and the decimal places of each: what formatting an amount
 * needs, kept apart from the schemas (and zod) so that the inspector's browser bundle can format
 * amounts with this very code.
 */

/** Fiat currencies the service supports for wallets. */
export const FIAT_CURRENCIES = [
  'USD',
  'EUR',
  'GBP',
  'CAD',
  'AUD',
  'JPY',
  'CHF',
  'CNY',
  'INR',
  'BRL',
  'MXN',
] as const
/** Crypto currencies the service supports for wallets. */
export const CRYPTO_CURRENCIES = ['BTC', 'ETH', 'SOL', 'USDC', 'USDT', 'MATIC', 'AVAX', 'NEAR'] as const
/** Every currency a wallet may hold. */
export const SUPPORTED_CURRENCIES = [...FIAT_CURRENCIES, ...CRYPTO_CURRENCIES] as const

export type Currency = (typeof SUPPORTED_CURRENCIES)[number]
export function isSupportedCurrency(code: string): code is Currency {
  return (SUPPORTED_CURRENCIES as readonly string[]).includes(code)
}

/**
 * Digits after the decimal point of each currency's smallest unit (cents for fiat, wei for ETH,
 * lamports for SOL, 6 for USDC). Amounts on the wire are integers in that unit.
 */
export const MINOR_UNITS: Record<Currency, number> = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  CAD: 2,
  AUD: 2,
  JPY: 0,
  CHF: 2,
  CNY: 2,
  INR: 2,
  BRL: 2,
  MXN: 2,
  BTC: 8,
  ETH: 18,
  SOL: 9,
  USDC: 6,
  USDT: 6,
  MATIC: 18,
  AVAX: 18,
  NEAR: 24,
}

/** The decimal places of a currency code, or undefined for a code payctl does not know. */
export function minorUnitsOf(code: string): number | undefined {
  return Object.hasOwn(MINOR_UNITS, code) ? MINOR_UNITS[code as Currency] : undefined
}
