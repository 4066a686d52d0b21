import {Flags} from '@oclif/core'
import {
  MINOR_UNITS,
  minorUnitsOf,
  ROUNDUP_CURRENCIES,
  ROUNDUP_MULTIPLIERS,
  type UpdateRoundupSettingsInput,
} from '../contract/index.js'
import {type PayctlClient, parseAmount, readMajor, usageError} from '../core/index.js'

/** Flags of the commands that change round-up settings. */
export const roundupSettingsFlags = {
  multiplier: Flags.option({options: ROUNDUP_MULTIPLIERS.map(String) as ['1', '2', '3', '5']})({
    summary: 'multiply the spare change by 1, 2, 3 or 5',
  }),
  max: Flags.string({
    summary: 'cap per purchase, in major units of the round-up currency: 5 (5.00 USD), or 5USD',
    aliases: ['max-roundup-amount'],
  }),
  'destination-account': Flags.string({
    summary:
      'where transfers go: a bank account the user connected (ba_…, USD only) or another user\'s wallet in the round-up currency (not the user\'s own: it is the source); "none" removes it',
  }),
  currency: Flags.string({
    summary: 'the fiat currency round-ups are kept in (default USD)',
    parse: async (value) => value.toUpperCase(),
  }),
}

/**
 * A decimal amount in major units, as typed, with its currency appended or not (4.35, 4.35USD):
 * sent as the JSON number it spells, so the service reads back the same digits. Anything but a
 * plain decimal is refused here, naming the flag, as are more decimals than a named currency has.
 */
export function majorFlag(
  text: string,
  flag: string,
): {digits: string; value: number; currency: string | undefined} {
  const read = readMajor(text)
  if (read === undefined) {
    throw usageError(
      `--${flag} must be a decimal amount in major units, e.g. 5, 4.35 or 4.35USD (got "${text}")`,
      'INVALID_FLAG',
      {
        flag: `--${flag}`,
      },
    )
  }
  if (read.currency !== undefined) parseAmount(`${read.digits}${read.currency}`, read.currency)
  return read
}

/** The currency `user`'s round-ups are kept in, as the service says. */
export async function roundupCurrency(api: PayctlClient, user: string): Promise<string> {
  const settings = await api.call('getRoundupSettings', {params: {id: user}})
  return String(settings.currency)
}

/**
 * Refuse an amount whose appended currency is not the round-up currency, which `actual` gives
 * (looked up only when a currency was appended).
 */
export async function checkRoundupCurrency(
  given: {flag: string; currency: string | undefined},
  actual: () => Promise<string>,
): Promise<void> {
  if (given.currency === undefined) return
  const currency = await actual()
  if (given.currency === currency) return
  throw usageError(
    `--${given.flag} is in ${given.currency} but the round-ups are in ${currency}`,
    'INVALID_AMOUNT',
    {flag: `--${given.flag}`, currency},
  )
}

/** The most decimals a round-up currency has (2: USD, EUR…; JPY none). */
const ROUNDUP_DECIMALS = Math.max(...ROUNDUP_CURRENCIES.map((c) => MINOR_UNITS[c]))

/**
 * Refuse, before anything is sent, an amount with more decimals than the round-up currency has
 * (4.355 in USD), which the service would refuse after the request. An amount that names its
 * currency was checked when read. Otherwise the currency is `known` (--currency), or, only for an
 * amount no round-up currency takes (more than two decimals), looked up to name it: an amount that
 * fits some currency costs no request, and one that fits USD but not JPY is left to the service
 * unless the currency is known. Where the lookup fails, the message names no currency.
 */
export async function checkRoundupDecimals(
  flag: string,
  amount: {digits: string; currency: string | undefined},
  currency: {known?: string | undefined; lookup: () => Promise<string>},
): Promise<void> {
  // What is sent is the number the digits spell: trailing zeros are not decimals of it.
  const decimals = (amount.digits.split('.')[1] ?? '').replace(/0+$/, '').length
  if (decimals === 0 || amount.currency !== undefined) return
  if (currency.known === undefined && decimals <= ROUNDUP_DECIMALS) return
  const code = currency.known ?? (await currency.lookup().catch(() => undefined))
  const places = code === undefined ? undefined : minorUnitsOf(code)
  if (decimals <= (places ?? ROUNDUP_DECIMALS)) return
  const has = `--${flag} ${amount.digits} has ${decimals} decimal place${decimals === 1 ? '' : 's'}`
  throw usageError(
    places === undefined
      ? `${has}, but a round-up amount has at most ${ROUNDUP_DECIMALS}`
      : `${has}, but the round-ups are in ${code}, which has ${places === 0 ? 'none' : places}`,
    'INVALID_AMOUNT',
    {
      flag: `--${flag}`,
      ...(code === undefined ? {} : {currency: code}),
      decimalPlaces: places ?? ROUNDUP_DECIMALS,
    },
  )
}

/**
 * The settings the flags ask to change (empty when no settings flag was given), and --max as read
 * (its digits and the currency it named, 5USD), if given.
 */
export function settingsChange(f: {
  multiplier?: string | undefined
  max?: string | undefined
  'destination-account'?: string | undefined
  currency?: string | undefined
  enabled?: boolean | undefined
}): {change: UpdateRoundupSettingsInput; max: ReturnType<typeof majorFlag> | undefined} {
  const change: UpdateRoundupSettingsInput = {}
  let max: ReturnType<typeof majorFlag> | undefined
  if (f.enabled !== undefined) change.enabled = f.enabled
  if (f.multiplier !== undefined)
    change.multiplier = Number(f.multiplier) as UpdateRoundupSettingsInput['multiplier']
  if (f.max !== undefined) {
    max = majorFlag(f.max, 'max')
    change.max_roundup_amount = max.value
  }
  const destination = f['destination-account']
  if (destination !== undefined) change.destination_account_id = destination === 'none' ? null : destination
  if (f.currency !== undefined) change.currency = f.currency as UpdateRoundupSettingsInput['currency']
  return {change, max}
}

/**
 * Refuse a --max that the round-up currency would refuse (another currency appended, more
 * decimals than it has), before anything is sent: the currency is --currency when given (the one
 * the settings change to), else the user's, looked up only when needed.
 */
export async function checkMaxFlag(
  max: ReturnType<typeof majorFlag> | undefined,
  currencyFlag: string | undefined,
  lookup: () => Promise<string>,
): Promise<void> {
  if (max === undefined) return
  await checkRoundupCurrency({flag: 'max', currency: max.currency}, async () => currencyFlag ?? lookup())
  await checkRoundupDecimals('max', max, {known: currencyFlag, lookup})
}
