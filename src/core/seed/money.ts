import {majorToMinor, parseMinor} from '../../contract/index.js'
import {isSupportedCurrency} from '../../contract/money/currencies.js'
import {PayctlError} from '../errors.js'
import {hasBareDecimals, parseAmount, readMajor} from '../money.js'

/**
 * The money fields of a fixture, read from their text exactly as the command line reads the same
 * amount: a fixture has no other rule to learn, and YAML's reading of `10.00` as the number 10 (or
 * of `1e3` as 1000) never decides what an amount means.
 *
 * - `minor`: as `--amount` reads it. An integer is in the smallest unit (`1050` is 10.50 USD); a
 *   decimal needs its currency appended (`10.50USD`, `"10.50 USD"`); a decimal without one
 *   (`10.50`, `10.00`) is refused, there being no `--decimal` in a fixture.
 * - `major`: as `roundups process --amount` and `roundups settings set --max` read it, the round-up
 *   API's own unit: a plain decimal in major units (`4.35`).
 */
export const MONEY_FIELDS = {
  users: {},
  wallets: {initial_balance: {unit: 'minor', minimum: 0n}},
  payment_methods: {},
  transactions: {amount: {unit: 'minor', minimum: 1n}},
  webhooks: {},
  roundup_settings: {max_roundup_amount: {unit: 'major'}},
  purchases: {amount: {unit: 'major'}},
  bnpl_payments: {amount: {unit: 'minor', minimum: 1n}},
} as const satisfies Record<string, Record<string, {unit: 'minor'; minimum: bigint} | {unit: 'major'}>>

type MoneyKind = keyof typeof MONEY_FIELDS
type Rule = {unit: 'minor'; minimum: bigint} | {unit: 'major'}

/** The money fields of a kind of record. */
export function moneyFields(kind: MoneyKind): string[] {
  return Object.keys(MONEY_FIELDS[kind])
}

function ruleOf(kind: MoneyKind, field: string): Rule | undefined {
  return (MONEY_FIELDS[kind] as Record<string, Rule>)[field]
}

/**
 * What is wrong with the text of a money field, or undefined when it reads as the command line
 * would read it. `currency` is the record's own (its `currency` field, or USD for a BNPL payment, as
 * `bnpl payments create` takes it), when the fixture holds it.
 */
export function moneyProblem(
  kind: MoneyKind,
  field: string,
  text: string,
  currency: string | undefined,
): string | undefined {
  const rule = ruleOf(kind, field)
  if (rule === undefined) return undefined
  try {
    if (rule.unit === 'major') majorAmount(text, currency)
    else minorAmount(text, currency, rule.minimum)
    return undefined
  } catch (err) {
    if (err instanceof PayctlError) return err.message
    throw err
  }
}

/**
 * The amount of a money field in the smallest unit, for a value known only at run time (one that
 * refers to another record); text the fixture holds was checked when it was read.
 */
export function minorAmountOf(
  kind: MoneyKind,
  field: string,
  value: unknown,
  currency: string | undefined,
): number | bigint {
  // A value from another record's answer (`${transactions.t.amount}`) is the service's own integer.
  if (typeof value === 'number' || typeof value === 'bigint') return value
  const rule = ruleOf(kind, field)
  try {
    return minorAmount(String(value), currency, rule?.unit === 'minor' ? rule.minimum : 1n)
  } catch (err) {
    if (err instanceof PayctlError) err.message = `${field}: ${err.message}`
    throw err
  }
}

function minorAmount(text: string, currency: string | undefined, minimum: bigint): number | bigint {
  if (hasBareDecimals(text)) throw refused(decimalsHint(text, currency))
  let amount: number | bigint
  try {
    amount = parseAmount(text, currency).amount
  } catch (err) {
    throw refused((err as Error).message)
  }
  if (BigInt(amount) < minimum)
    throw refused(`"${text}" must be ${minimum === 0n ? '0 or more' : 'greater than zero'}`)
  return amount
}

function majorAmount(text: string, currency: string | undefined): number {
  const read = readMajor(text)
  if (read === undefined)
    throw refused(
      `"${text}" is not a decimal amount in major units: write it as the round-up commands take it, e.g. 5, 4.35 or 4.35USD`,
    )
  // As the commands do: an appended currency must be the round-ups' own, where the fixture says it.
  if (read.currency !== undefined && currency !== undefined && read.currency !== currency)
    throw refused(`"${text}" is in ${read.currency} but the round-ups are in ${currency}`)
  const amount = read.value
  if (amount <= 0) throw refused(`"${text}" must be greater than zero`)
  if (read.currency !== undefined) {
    // The decimals its own currency allows, as the flag checks them.
    try {
      parseAmount(`${read.digits}${read.currency}`, read.currency)
    } catch (err) {
      throw refused(`"${text}": ${(err as Error).message}`)
    }
  } else if (currency !== undefined && isSupportedCurrency(currency)) {
    try {
      majorToMinor(amount, currency)
    } catch (err) {
      throw refused(`"${text}": ${(err as Error).message}`)
    }
  }
  return amount
}

/** The forms that say what "10.50" meant: its smallest unit, or the decimal with its currency. */
function decimalsHint(text: string, currency: string | undefined): string {
  const decimal = text.trim()
  const code = currency ?? 'USD'
  let forms: string
  try {
    forms = `${parseMinor(`${decimal}${code}`, code).minor} (the smallest unit) or ${decimal}${code}`
  } catch {
    // More decimals than the currency has: no integer says the same; the forms in general do.
    forms = `an integer in the smallest unit (1234) or a decimal with its currency (12.34${code})`
  }
  return `"${text}" has decimals but no currency, which --amount refuses too: write ${forms}`
}

function refused(message: string): PayctlError {
  return new PayctlError({kind: 'usage', code: 'INVALID_FIXTURE', message})
}
