import {
  type Loose,
  MINOR_UNITS,
  majorToMinor,
  ROUNDUP_CURRENCIES,
  ROUNDUP_MULTIPLIERS,
  type RoundupMultiplier,
  type RoundupSettingsRecord,
  type UpdateRoundupSettingsInput,
} from '../contract/index.js'
import {formatMoney} from '../core/index.js'
import {majorMoney} from './rendering/field-readers.js'
import type {Prompter as FullPrompter} from './runtime/prompter.js'

/** The questions the settings walkthrough asks; injected, so the walk can be tested without a terminal. */
export type Prompter = Pick<FullPrompter, 'select' | 'input' | 'confirm'>

/** A cap typed by a person: a plain decimal in major units of the round-up currency. */
export function capProblem(text: string, currency: RoundupSettingsRecord['currency']): true | string {
  if (!/^\d+(\.\d+)?$/.test(text.trim())) return `give the cap in ${currency}, e.g. 5 or 2.50`
  try {
    return majorToMinor(Number(text), currency) > 0n ? true : 'the cap must be above 0'
  } catch (err) {
    return (err as Error).message
  }
}

/**
 * Walk a person through the round-up settings, starting from the current ones: a choice of
 * multiplier (with what it makes of a 4.35 purchase), the cap, the destination, and a confirmation
 * before round-ups are turned on. Returns only what changed.
 */
export async function askRoundupSettings(
  current: RoundupSettingsRecord,
  prompter: Prompter,
  /** Checks a destination as it is answered (the service's own rules); a string says what is wrong. */
  checkDestination: (id: string) => Promise<true | string> = async () => true,
): Promise<UpdateRoundupSettingsInput> {
  const {currency} = current
  const cap0 = majorToMinor(current.max_roundup_amount, currency)
  // What each multiplier makes of a 4.35 purchase (65 cents of spare change), under the current cap.
  const example = (m: RoundupMultiplier) => {
    if (MINOR_UNITS[currency] !== 2) return ''
    const spare = 65n * BigInt(m)
    const capped = spare > cap0
    return ` (4.35 → ${formatMoney(capped ? cap0 : spare, currency)}${capped ? ', capped' : ''})`
  }
  const multiplier = await prompter.select(
    'Multiplier of the spare change',
    ROUNDUP_MULTIPLIERS.map((m) => ({name: `×${m}${example(m)}`, value: m})),
    current.multiplier,
  )
  const capText = await prompter.input(
    `Cap per purchase, in ${currency}`,
    String(current.max_roundup_amount),
    (value) => capProblem(value, currency),
  )
  const destinationText = await prompter.input(
    `Destination account: ${currency === 'USD' ? 'a bank account the user connected (ba_…) or ' : ''}a ${currency} wallet of another user (blank for none)`,
    current.destination_account_id ?? '',
    (value) => (value.trim() === '' ? true : checkDestination(value.trim())),
  )
  const cap = Number(capText.trim())
  const destination = destinationText.trim() === '' ? null : destinationText.trim()
  const enabled = await prompter.confirm(
    `Turn round-ups on for ${current.user_id} (×${multiplier}, at most ${majorMoney(cap, currency)} a purchase)?`,
    true,
  )
  const change: UpdateRoundupSettingsInput = {}
  if (multiplier !== current.multiplier) change.multiplier = multiplier
  if (majorToMinor(cap, currency) !== cap0) change.max_roundup_amount = cap
  if (destination !== current.destination_account_id) change.destination_account_id = destination
  if (enabled !== current.enabled) change.enabled = enabled
  return change
}

/**
 * The settings the walkthrough starts from, out of whatever the service answered (the interface
 * shows no answer for the round-up product's settings): what is missing or unusable takes the
 * defaults, so a person is asked about every setting anyway.
 */
export function walkthroughStart(
  userId: string,
  answer: Loose<RoundupSettingsRecord>,
): RoundupSettingsRecord {
  const currency = (ROUNDUP_CURRENCIES as readonly unknown[]).includes(answer.currency)
    ? (answer.currency as RoundupSettingsRecord['currency'])
    : 'USD'
  const cap = answer.max_roundup_amount
  return {
    user_id: typeof answer.user_id === 'string' ? answer.user_id : userId,
    enabled: answer.enabled === true,
    multiplier: (ROUNDUP_MULTIPLIERS as readonly unknown[]).includes(answer.multiplier)
      ? (answer.multiplier as RoundupMultiplier)
      : 1,
    max_roundup_amount: typeof cap === 'number' && capProblem(String(cap), currency) === true ? cap : 5,
    destination_account_id:
      typeof answer.destination_account_id === 'string' ? answer.destination_account_id : null,
    currency,
    created_at: null,
    updated_at: null,
  }
}

/** Where round-ups may go: the service's rules, told to a person before the confirmation. */
export interface DestinationLookup {
  wallet: (id: string) => Promise<{currency: string; userId: string} | undefined>
  bankAccounts: (userId: string) => Promise<{id: string}[]>
}

export function destinationChecker(
  current: RoundupSettingsRecord,
  lookup: DestinationLookup,
): (id: string) => Promise<true | string> {
  const {currency, user_id: user} = current
  const check = async (id: string): Promise<true | string> => {
    if (id.startsWith('wal_')) {
      const wallet = await lookup.wallet(id)
      if (!wallet) return `no wallet ${id}`
      if (wallet.currency !== currency)
        return `wallet ${id} holds ${wallet.currency}; these round-ups are in ${currency}`
      if (wallet.userId === user)
        return `wallet ${id} is ${user}'s own ${currency} wallet, where the round-ups come from: give ${currency === 'USD' ? `a bank account ${user} connected (ba_…) or ` : ''}a ${currency} wallet of another user, such as one kept for savings (a user has one wallet per currency)`
      return true
    }
    if (id.startsWith('ba_')) {
      const accounts = await lookup.bankAccounts(user)
      if (!accounts.some((a) => a.id === id))
        return `${id} is not a bank account ${user} connected (payctl accounts list ${user})`
      if (currency !== 'USD')
        return `a bank account is paid by ACH, which takes USD only; these round-ups are in ${currency}`
      return true
    }
    // An id of another form is the service's to judge (its ids need not look like the sandbox's),
    // and so is one that could not be looked up: the settings call refuses a wrong one.
    return true
  }
  return (id) => check(id).catch(() => true)
}
