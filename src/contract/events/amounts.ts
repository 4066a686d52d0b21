import {majorToMinor} from '../money/amounts.js'
import {isSupportedCurrency} from '../money/currency-units.js'
import {minorFrom} from '../money/format.js'
import type {EventName} from './names.js'

/**
 * Where each event's data carries money, and in which unit: the smallest unit (an integer, as in
 * every record of the API) or major units (a decimal: the round-up product's records, as the spec
 * shows them, docs/roundups.md#amounts-in-major-units). What shows an event reads its amounts by
 * this table, never by what a value looks like: `5` is five dollars in a round-up's record and
 * five cents in a transaction's. Free of zod, so that the inspector's browser bundle reads it too.
 */

/** The unit an event's record has its amounts in. */
export type AmountUnit = 'minor' | 'major'

export interface EventMoney {
  unit: AmountUnit
  /** The fields of the data that are amounts in its `currency`, each with what a person calls it. */
  fields: readonly (readonly [field: string, label: string])[]
}

const MINOR_AMOUNT: EventMoney = {unit: 'minor', fields: [['amount', 'Amount']]}
const BNPL: EventMoney = {
  unit: 'minor',
  fields: [
    ['amount', 'Amount'],
    ['paidAmount', 'Paid'],
    ['outstandingAmount', 'Outstanding'],
  ],
}
const NO_MONEY: EventMoney = {unit: 'minor', fields: []}

/** Each event's amounts: the schema of its record (src/contract/roundups.ts, bnpl.ts, …) says which. */
export const EVENT_AMOUNTS: Readonly<Record<EventName, EventMoney>> = {
  'roundupsvc.roundup.processed': {
    unit: 'major',
    fields: [
      ['amount', 'Purchase'],
      ['roundup_amount', 'Round-up'],
    ],
  },
  'roundupsvc.transfer.completed': {unit: 'major', fields: [['amount', 'Amount']]},
  'bnplsvc.payment.created': BNPL,
  'bnplsvc.payment.completed': BNPL,
  'bnplsvc.payment.failed': BNPL,
  'walletsvc.payment.completed': MINOR_AMOUNT,
  'walletsvc.p2p.sent': MINOR_AMOUNT,
  'walletsvc.card.created': NO_MONEY,
  'transfer.completed': MINOR_AMOUNT,
  'transfer.failed': MINOR_AMOUNT,
  // The common API's round-up event: the spec's `data.amount`, in the smallest unit like the rest.
  'roundup.processed': {unit: 'minor', fields: [['amount', 'Round-up']]},
  'wallet.created': NO_MONEY,
  'transaction.completed': MINOR_AMOUNT,
  'transaction.failed': MINOR_AMOUNT,
}

/** What an event's table says of its money; undefined for a name the contract does not know. */
export function moneyOf(event: string): EventMoney | undefined {
  return Object.hasOwn(EVENT_AMOUNTS, event) ? EVENT_AMOUNTS[event as EventName] : undefined
}

/** One amount of an event, in the smallest unit of its currency (undefined where it is not one). */
export interface EventAmount {
  label: string
  amount: bigint | undefined
  currency: string | undefined
}

/**
 * The amounts of an event's data, each read in the unit its record has it in and given in the
 * smallest unit: a round-up's `4.35` is 435n, a transaction's `500` is 500n. A value that is not an
 * amount of that unit (a fraction where integers are, a decimal a currency cannot hold) is
 * undefined, never a guess; an event the contract does not know has none.
 */
export function eventAmounts(event: string, data: Readonly<Record<string, unknown>>): EventAmount[] {
  const money = moneyOf(event)
  if (money === undefined) return []
  const currency = typeof data.currency === 'string' ? data.currency : undefined
  return money.fields.map(([field, label]) => ({
    label,
    amount: inSmallestUnit(data[field], currency, money.unit),
    currency,
  }))
}

function inSmallestUnit(value: unknown, currency: string | undefined, unit: AmountUnit): bigint | undefined {
  if (unit === 'minor') return minorFrom(value)
  if (typeof value !== 'number' || currency === undefined || !isSupportedCurrency(currency)) return undefined
  try {
    return majorToMinor(value, currency)
  } catch (err) {
    if (err instanceof RangeError) return undefined
    throw err
  }
}
