import {Flags} from '@oclif/core'
import {ROUNDUP_MULTIPLIERS, type UpdateRoundupSettingsInput} from '../contract/index.js'
import {isPlainMajor, usageError} from '../core/index.js'

/** Flags of the commands that change round-up settings. */
export const roundupSettingsFlags = {
  multiplier: Flags.option({options: ROUNDUP_MULTIPLIERS.map(String) as ['1', '2', '3', '5']})({
    summary: 'multiply the spare change by 1, 2, 3 or 5',
  }),
  max: Flags.string({
    summary: 'cap per purchase, in major units of the round-up currency (5 is 5.00 USD)',
    aliases: ['max-roundup-amount'],
  }),
  'destination-account': Flags.string({
    summary: 'where transfers go: a wallet id, or a connected bank account id (USD only); "none" removes it',
  }),
  currency: Flags.string({
    summary: 'the fiat currency round-ups are kept in (default USD)',
    parse: async (value) => value.toUpperCase(),
  }),
}

/**
 * A decimal amount in major units, as typed: sent as the JSON number it spells, so the service
 * reads back the same digits. Anything but a plain decimal is refused here, naming the flag.
 */
export function majorFlag(text: string, flag: string): number {
  if (!isPlainMajor(text)) {
    throw usageError(
      `--${flag} must be a decimal amount in major units, e.g. 5 or 4.35 (got "${text}")`,
      'INVALID_FLAG',
      {
        flag: `--${flag}`,
      },
    )
  }
  return Number(text.trim())
}

/** The settings the flags ask to change; empty when no settings flag was given. */
export function settingsChange(f: {
  multiplier?: string | undefined
  max?: string | undefined
  'destination-account'?: string | undefined
  currency?: string | undefined
  enabled?: boolean | undefined
}): UpdateRoundupSettingsInput {
  const change: UpdateRoundupSettingsInput = {}
  if (f.enabled !== undefined) change.enabled = f.enabled
  if (f.multiplier !== undefined)
    change.multiplier = Number(f.multiplier) as UpdateRoundupSettingsInput['multiplier']
  if (f.max !== undefined) change.max_roundup_amount = majorFlag(f.max, 'max')
  const destination = f['destination-account']
  if (destination !== undefined) change.destination_account_id = destination === 'none' ? null : destination
  if (f.currency !== undefined) change.currency = f.currency as UpdateRoundupSettingsInput['currency']
  return change
}
