import {Flags} from '@oclif/core'
import {ROUNDUP_MULTIPLIERS, type UpdateRoundupSettingsInput} from '../contract/index.js'
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
export function majorFlag(text: string, flag: string): {value: number; currency: string | undefined} {
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
  return {value: read.value, currency: read.currency}
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

/**
 * The settings the flags ask to change (empty when no settings flag was given), and the currency
 * --max named (5USD), if any.
 */
export function settingsChange(f: {
  multiplier?: string | undefined
  max?: string | undefined
  'destination-account'?: string | undefined
  currency?: string | undefined
  enabled?: boolean | undefined
}): {change: UpdateRoundupSettingsInput; maxCurrency: string | undefined} {
  const change: UpdateRoundupSettingsInput = {}
  let maxCurrency: string | undefined
  if (f.enabled !== undefined) change.enabled = f.enabled
  if (f.multiplier !== undefined)
    change.multiplier = Number(f.multiplier) as UpdateRoundupSettingsInput['multiplier']
  if (f.max !== undefined) {
    const max = majorFlag(f.max, 'max')
    change.max_roundup_amount = max.value
    maxCurrency = max.currency
  }
  const destination = f['destination-account']
  if (destination !== undefined) change.destination_account_id = destination === 'none' ? null : destination
  if (f.currency !== undefined) change.currency = f.currency as UpdateRoundupSettingsInput['currency']
  return {change, maxCurrency}
}
