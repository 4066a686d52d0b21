import {
  currencySuffix,
  formatMoney,
  MINOR_UNITS,
  SUPPORTED_CURRENCIES,
  splitAmount,
} from '../contract/index.js'
import {hasBareDecimals, PayctlError, parseAmount, usageError} from '../core/index.js'
import type {Questions} from './runtime/questions.js'

/** What the --amount, --currency and --decimal flags (moneyFlags) were given. */
export interface MoneyFlagValues {
  amount?: string | undefined
  currency?: string | undefined
  decimal?: boolean | undefined
}

/**
 * The amount and currency of a command's --amount, --currency and --decimal, under one rule for
 * every command: the currency comes from --currency or from the amount's suffix (12.34USD); a bare
 * amount with neither is asked for in a terminal (where a bare integer may be typed again with its
 * currency, 10.00USD), and otherwise refused (exit 2), naming both ways to give it, never taken for
 * USD. `example` is the prompt's example of an amount, when none is given.
 */
export async function moneyFrom(
  f: MoneyFlagValues,
  questions: Questions,
  example: string,
): Promise<{amount: number | bigint; currency: string; text: string}> {
  const given = f.amount ?? (await questions.ask('amount', `Amount (e.g. ${example})`))
  const decimal = f.decimal ?? false
  checkReadable(given, f.currency, decimal)
  const known = currencyFrom(f.currency, given)
  const {text, currency} =
    known === undefined ? await askCurrency(given, decimal, questions) : {text: given, currency: known}
  return {amount: amountFrom(text, currency, decimal), currency, text}
}

/**
 * The amount of an `--amount` flag in the smallest unit of `currency`: an integer as is, a decimal
 * with its currency appended, or (with --decimal) a decimal in major units. Without a currency,
 * the error of the rule (missingCurrency).
 */
export function amountFrom(text: string, currency: string | undefined, decimal: boolean): number | bigint {
  checkReadable(text, currency, decimal)
  if (currency === undefined) throw missingCurrency(text, decimal)
  const amount =
    decimal && !/[A-Za-z]/.test(text)
      ? parseAmount(`${text}${currency}`, currency).amount
      : parseAmount(text, currency).amount
  // Checked for every form: `--amount -5 --decimal` must not reach the service as -500.
  if (amount <= 0) throw usageError('--amount must be greater than zero', 'INVALID_AMOUNT')
  return amount
}

/** The currency given by the flag or by a suffixed amount ("12.34USD"), if either gives one. */
export function currencyFrom(flag: string | undefined, amountText: string | undefined): string | undefined {
  if (flag) return flag.toUpperCase()
  const suffix = amountText ? currencySuffix(amountText) : undefined
  return suffix?.toUpperCase()
}

/** Refuse what is no amount at all, and decimals that say neither their currency nor --decimal. */
function checkReadable(text: string, currency: string | undefined, decimal: boolean): void {
  const parts = splitAmount(text)
  if (parts === undefined) parseAmount(text) // refuses it, saying what an amount looks like
  if (!decimal && hasBareDecimals(text)) {
    throw usageError(
      `--amount "${text}" has decimals: give the smallest unit (1234), append the currency (${text}${currency ?? 'USD'}), or pass --decimal`,
      'INVALID_AMOUNT',
    )
  }
}

/**
 * The currency of an amount that names none: asked in a terminal, an error naming both ways
 * otherwise. A bare integer is in the smallest unit, which a person typing `10` for ten dollars
 * does not expect: the question says what it means (10 = 0.10 USD) and takes the amount again
 * with its currency (10.00USD) instead, which then replaces it.
 */
async function askCurrency(
  given: string,
  decimal: boolean,
  questions: Questions,
): Promise<{text: string; currency: string}> {
  if (!questions.interactive) throw missingCurrency(given, decimal)
  const minor = decimal ? undefined : smallestUnits(given)
  const isCurrency = (v: string) =>
    (SUPPORTED_CURRENCIES as readonly string[]).includes(v.trim().toUpperCase())
  if (minor === undefined) {
    const answer = await questions.ask('currency', 'Currency', {
      default: 'USD',
      validate: (v) => (isCurrency(v) ? true : `one of ${SUPPORTED_CURRENCIES.join(', ')}`),
    })
    return {text: given, currency: answer.trim().toUpperCase()}
  }
  const whole = `${minor}.${'0'.repeat(MINOR_UNITS.USD)}USD`
  const answer = await questions.ask(
    'currency',
    `Currency: ${minor} = ${formatMoney(minor, 'USD')} (the smallest unit); for ${minor} dollars, type ${whole}`,
    {
      default: 'USD',
      validate: (v) => {
        if (isCurrency(v)) return true
        if (currencySuffix(v) === undefined)
          return `one of ${SUPPORTED_CURRENCIES.join(', ')}, or an amount with its currency (${whole})`
        try {
          amountFrom(v, currencyFrom(undefined, v), false)
          return true
        } catch (err) {
          return (err as Error).message
        }
      },
    },
  )
  if (isCurrency(answer)) return {text: given, currency: answer.trim().toUpperCase()}
  return {text: answer.trim(), currency: currencyFrom(undefined, answer)!}
}

/** A bare positive integer's value (the smallest unit of its currency); undefined for any other text. */
function smallestUnits(text: string): bigint | undefined {
  const parts = splitAmount(text)
  if (parts === undefined || parts.sign !== '' || parts.fraction !== undefined || parts.suffix !== undefined)
    return undefined
  const minor = BigInt(parts.whole.replaceAll('_', ''))
  return minor > 0n ? minor : undefined
}

/** A bare amount without a currency: the two ways to give one, with what each would mean. */
export function missingCurrency(text: string, decimal: boolean): PayctlError {
  const amount = text.trim()
  const minor = /^\d+$/.test(amount) && !decimal ? BigInt(amount) : undefined
  const ways = decimal
    ? [`--currency USD (${amount} USD)`, `${amount}USD`]
    : [
        `--currency USD (${amount} in its smallest unit${minor === undefined ? '' : `: ${formatMoney(minor, 'USD')}`})`,
        `${amount}USD (${amount} USD)`,
      ]
  return new PayctlError({
    kind: 'usage',
    code: 'MISSING_FLAG',
    message: `--amount ${amount} has no currency: give it with ${ways[0]}, or append it to the amount: ${ways[1]}`,
    details: {flag: '--currency'},
    suggestions: [`Pass --currency, or append the currency to the amount (--amount ${amount}USD).`],
  })
}

/**
 * An amount in the currency of a record (the transaction a refund is of, the wallet whose limits
 * change): a bare integer is in that currency's smallest unit; a suffixed one (5.00USD) must name
 * that currency, which `currencyOf` looks up, only then, so that 5.00EUR is never taken for 500
 * of a USD wallet.
 */
export async function amountInCurrencyOf(
  text: string,
  currencyOf: () => Promise<string>,
): Promise<number | bigint> {
  if (currencySuffix(text) === undefined) return parseAmount(text).amount
  return parseAmount(text, await currencyOf()).amount
}
