import {majorToMinor, minorToMajorText} from '../../contract/money/amounts.js'
import type {Currency} from '../../contract/money/currencies.js'
import {
  DEFAULT_MAX_ROUNDUP,
  type RoundupCurrency,
  type RoundupMultiplier,
  type RoundupSettingsRecord,
} from '../../contract/roundups.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {jsonMajor} from '../http/json.js'
import type {WalletState} from '../money/ledger.js'
import type {RoundupStatements} from './store.js'

/** The settings in effect for a user: their own, or the defaults until they set some. */
export interface SettingsState {
  userId: string
  enabled: boolean
  multiplier: RoundupMultiplier
  /** Cap per purchase, smallest unit of `currency`. */
  max: bigint
  destination: string | null
  currency: RoundupCurrency
  createdAt: string | null
  updatedAt: string | null
}

/** What a settings write asks for; absent fields keep their current value. */
export interface SettingsChange {
  enabled?: boolean | undefined
  multiplier?: RoundupMultiplier | undefined
  /** Major units, as sent. */
  max?: number | undefined
  destination?: string | null | undefined
  currency?: RoundupCurrency | undefined
}

/** Where a transfer goes: another wallet of the round-up currency, or the user's bank account. */
export type Destination =
  | {type: 'wallet'; wallet: WalletState}
  | {type: 'bank_account'; id: string; paymentMethodId: string}

export function invalidField(field: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${message}`, {
    field,
    ...extra,
    issues: [{path: field, code: 'invalid_value', message}],
  })
}

/** `value` major units of `currency` in its smallest unit, or a VALIDATION_ERROR naming `field`. */
export function minorOf(value: number, currency: Currency, field: string): bigint {
  try {
    return majorToMinor(value, currency)
  } catch (err) {
    throw invalidField(field, (err as Error).message)
  }
}

/** Each user's round-up settings, and where their round-ups may go. */
export class RoundupSettings {
  constructor(
    private readonly deps: Pick<SandboxContext, 'database' | 'clock' | 'money'>,
    private readonly q: RoundupStatements,
  ) {}

  settings(userId: string): SettingsState {
    const row = this.q.settings.get(userId)
    if (row === undefined) {
      return {
        userId,
        enabled: false,
        multiplier: 1,
        max: majorToMinor(DEFAULT_MAX_ROUNDUP, 'USD'),
        destination: null,
        currency: 'USD',
        createdAt: null,
        updatedAt: null,
      }
    }
    return {
      userId,
      enabled: row.enabled === 1,
      multiplier: row.multiplier as RoundupMultiplier,
      max: BigInt(row.max_roundup_amount),
      destination: row.destination_account_id,
      currency: row.currency,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }
  }

  /** The user's settings as the API shows them. */
  get(userId: string): RoundupSettingsRecord {
    return this.toRecord(this.settings(userId))
  }

  toRecord(s: SettingsState): RoundupSettingsRecord {
    return {
      user_id: s.userId,
      enabled: s.enabled,
      multiplier: s.multiplier,
      max_roundup_amount: jsonMajor(s.max, s.currency),
      destination_account_id: s.destination,
      currency: s.currency,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    }
  }

  /**
   * Apply `change` to the settings of the partner's user; the merged result is checked as a whole
   * before it is saved.
   */
  write(partnerId: string, userId: string, change: SettingsChange): RoundupSettingsRecord {
    const {database, clock} = this.deps
    return database.transaction(() => {
      const current = this.settings(userId)
      const currency = change.currency ?? current.currency
      if (currency !== current.currency) this.checkCurrencyFree(current, currency)
      const max = this.maxOf(change, current, currency)
      const destination = change.destination === undefined ? current.destination : change.destination
      if (destination !== null) this.destination(partnerId, userId, destination, currency)
      const now = clock.now(partnerId).toISOString()
      const next: SettingsState = {
        userId,
        enabled: change.enabled ?? current.enabled,
        multiplier: change.multiplier ?? current.multiplier,
        max,
        destination,
        currency,
        createdAt: current.createdAt ?? now,
        updatedAt: now,
      }
      this.q.saveSettings.run(
        userId,
        partnerId,
        next.enabled ? 1 : 0,
        next.multiplier,
        next.max.toString(),
        next.destination,
        next.currency,
        next.createdAt,
        next.updatedAt,
      )
      return this.toRecord(next)
    })
  }

  /**
   * The currency may change only with nothing in the current one: pending round-ups, and those of
   * a bank transfer that may still fail and come back, are amounts in it.
   */
  private checkCurrencyFree(current: SettingsState, requested: RoundupCurrency): void {
    const pending = this.q.pending.all(current.userId)
    const inFlight = this.q.processingOf.get(current.userId)!.n
    if (pending.length === 0 && inFlight === 0) return
    const total = pending.reduce((sum, r) => sum + BigInt(r.roundup_amount), 0n)
    throw new ApiError(
      'ROUNDUP_CURRENCY_LOCKED',
      `User ${current.userId} has ${current.currency} round-ups not yet transferred (${minorToMajorText(total, current.currency)} pending, ${inFlight} transfer(s) processing): the currency can change once they are`,
      {
        field: 'currency',
        currency: current.currency,
        requested,
        pending_total: jsonMajor(total, current.currency),
        pending_count: pending.length,
        processing_transfers: inFlight,
      },
    )
  }

  /** The cap a change leaves, in the smallest unit of `currency`. */
  private maxOf(change: SettingsChange, current: SettingsState, currency: RoundupCurrency): bigint {
    let max: bigint
    if (change.max !== undefined) {
      max = minorOf(change.max, currency, 'max_roundup_amount')
    } else if (currency !== current.currency) {
      // The cap keeps its figure in the new currency (5 USD becomes 5 EUR), if that figure fits it.
      const figure = minorToMajorText(current.max, current.currency)
      try {
        max = majorToMinor(Number(figure), currency)
      } catch (err) {
        throw invalidField(
          'max_roundup_amount',
          `${(err as Error).message}: give max_roundup_amount in ${currency} along with the currency`,
        )
      }
    } else {
      max = current.max
    }
    if (max <= 0n) throw invalidField('max_roundup_amount', 'Must be greater than 0')
    return max
  }

  /**
   * Resolve a destination: a wallet of the partner in the round-up currency other than the user's own
   * (the source of transfers), or a bank account the user connected (USD only: it is paid by ACH).
   * A refusal says why, then what is accepted: a second wallet of the user in the currency, the
   * first thing a person tries, cannot exist (one wallet per currency).
   */
  destination(partnerId: string, userId: string, id: string, currency: Currency): Destination {
    const {money} = this.deps
    const refuse = (reason: string, why: string) =>
      new ApiError('INVALID_DESTINATION_ACCOUNT', `${why}. ${acceptedDestinations(userId, currency)}`, {
        field: 'destination_account_id',
        value: id,
        reason,
        user_id: userId,
        currency,
      })
    const wallet = money.ledger.wallet(id, partnerId)
    if (wallet !== undefined) {
      if (wallet.currency !== currency) {
        throw refuse(
          'currency_mismatch',
          `Wallet ${id} holds ${wallet.currency}; round-ups of user ${userId} are in ${currency}`,
        )
      }
      if (wallet.userId === userId) {
        throw refuse(
          'source_wallet',
          `Wallet ${id} is user ${userId}'s own ${currency} wallet, where the round-ups come from`,
        )
      }
      return {type: 'wallet', wallet}
    }
    const account = money.saved.bankAccount(id, partnerId)
    if (account !== undefined) {
      if (account.user_id !== userId) {
        throw refuse('other_user', `Bank account ${id} belongs to another user than ${userId}`)
      }
      if (currency !== 'USD') {
        throw refuse(
          'ach_usd_only',
          `Bank account ${id} is paid by ACH, which is US-only: round-ups must be in USD, not ${currency}`,
        )
      }
      return {type: 'bank_account', id, paymentMethodId: account.payment_method_id}
    }
    // The payment method of a connected account is what `accounts connect` prints piped: name its account.
    const of = money.saved.bankAccountsOf(userId, partnerId).find((a) => a.payment_method_id === id)
    if (of !== undefined)
      throw refuse(
        'not_found',
        `${id} is the payment method of bank account ${of.id}, not an account: give ${of.id}`,
      )
    throw refuse('not_found', `No wallet or connected bank account ${id}`)
  }
}

/**
 * What a round-up destination may be, for `userId`'s round-ups in `currency`: the end of every
 * INVALID_DESTINATION_ACCOUNT message.
 */
export function acceptedDestinations(userId: string, currency: Currency): string {
  const wallet = `a ${currency} wallet of another user, such as one the partner keeps for savings (not a second wallet of ${userId}'s: a user has one wallet per currency)`
  return currency === 'USD'
    ? `A destination is a bank account ${userId} connected (its ba_… id, from GET /v1/users/${userId}/accounts) or ${wallet}`
    : `A destination is ${wallet}; a bank account takes USD round-ups only`
}
