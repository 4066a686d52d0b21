import {majorToMinor} from '../../contract/money/amounts.js'
import {type PendingRoundups, type Roundup, roundupStep} from '../../contract/roundups.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {jsonAmount, jsonMajor} from '../http/json.js'
import {randomHex} from '../storage/ids.js'
import {minorOf, type RoundupSettings, type SettingsState} from './settings.js'
import {type RoundupRow, type RoundupStatements, toRoundup} from './store.js'

/** Pending round-ups a pending list shows: the oldest. */
const PENDING_SHOWN = 100

/** A purchase to round up, as POST /transactions/process takes it (amount in major units). */
interface Purchase {
  user_id: string
  amount: number
  merchant_name: string
  transaction_id: string
}

/**
 * Round-ups over the ledger (docs/roundups.md): one settings record and one set of pending round-ups
 * per user, shared by the common endpoints and the `/roundupsvc` ones. Every method runs
 * synchronously in one database transaction.
 */
export class RoundupService {
  constructor(
    private readonly deps: Pick<SandboxContext, 'database' | 'clock' | 'money' | 'tenants' | 'events'>,
    private readonly q: RoundupStatements,
    private readonly settings: RoundupSettings,
  ) {}

  /**
   * POST /transactions/process: the round-up of one purchase, decided once per transaction_id. A
   * repeat with the same purchase answers the first result; the same id for another purchase is a
   * conflict.
   */
  process(partnerId: string, body: Purchase): Roundup {
    const {database, clock, tenants} = this.deps
    tenants.requireUser(partnerId, body.user_id, {field: 'user_id'})
    return database.transaction(() => {
      const existing = this.q.byTransaction.get(partnerId, body.transaction_id)
      if (existing !== undefined) return this.replay(existing, body)
      const settings = this.settings.settings(body.user_id)
      const amount = minorOf(body.amount, settings.currency, 'amount')
      const {roundup, capped, reason} = computeRoundup(amount, settings)
      const now = clock.now(partnerId)
      const row: RoundupRow = {
        id: `rnd_${randomHex(12)}`,
        user_id: body.user_id,
        transaction_id: body.transaction_id,
        merchant_name: body.merchant_name,
        amount: amount.toString(),
        roundup_amount: roundup.toString(),
        multiplier: settings.multiplier,
        capped: capped ? 1 : 0,
        currency: settings.currency,
        status: roundup > 0n ? 'pending' : 'skipped',
        reason,
        transfer_id: null,
        processed_at: now.toISOString(),
      }
      this.q.insertRoundup.run(
        row.id,
        partnerId,
        row.user_id,
        row.transaction_id,
        row.merchant_name,
        row.amount,
        row.roundup_amount,
        row.multiplier,
        row.capped,
        row.currency,
        row.status,
        row.reason,
        row.processed_at,
      )
      const result = toRoundup(row, false)
      // A skipped purchase moves no money and records no event.
      if (roundup > 0n) this.announce(partnerId, result, roundup, now)
      return result
    })
  }

  /**
   * The answer for a transaction_id processed before: its first result when the purchase is the
   * same (user, merchant and amount), DUPLICATE_TRANSACTION when it is another.
   */
  private replay(existing: RoundupRow, body: Purchase): Roundup {
    let sameAmount: boolean
    try {
      sameAmount = majorToMinor(body.amount, existing.currency) === BigInt(existing.amount)
    } catch {
      sameAmount = false
    }
    if (existing.user_id === body.user_id && existing.merchant_name === body.merchant_name && sameAmount) {
      return toRoundup(existing, true)
    }
    throw new ApiError(
      'DUPLICATE_TRANSACTION',
      `Transaction ${body.transaction_id} was already processed, for another purchase`,
      {
        field: 'transaction_id',
        transaction_id: body.transaction_id,
        roundup_id: existing.id,
        processed: {
          user_id: existing.user_id,
          amount: jsonMajor(BigInt(existing.amount), existing.currency),
          merchant_name: existing.merchant_name,
        },
      },
    )
  }

  /** The events of a processed round-up of `roundup`: the product's own, and the common API's. */
  private announce(partnerId: string, processed: Roundup, roundup: bigint, now: Date): void {
    const {duplicate: _duplicate, ...data} = processed
    const {events, money} = this.deps
    events.record('roundupsvc.roundup.processed', partnerId, data, now)
    const wallet = money.ledger.walletOfUser(processed.user_id, processed.currency, partnerId)
    events.record(
      'roundup.processed',
      partnerId,
      {
        id: processed.id,
        userId: processed.user_id,
        walletId: wallet?.id ?? null,
        transactionId: processed.transaction_id,
        amount: jsonAmount(roundup),
        currency: processed.currency,
        createdAt: processed.processed_at,
      },
      now,
    )
  }

  /** The pending round-ups of the partner's user. */
  pending(userId: string): PendingRoundups {
    const rows = this.q.pending.all(userId)
    const currency = this.settings.settings(userId).currency
    const total = rows.reduce((sum, r) => sum + BigInt(r.roundup_amount), 0n)
    return {
      user_id: userId,
      currency,
      total: jsonMajor(total, currency),
      count: rows.length,
      // The answer stays bounded however many there are; count and total cover them all.
      roundups: rows.slice(0, PENDING_SHOWN).map((r) => toRoundup(r, false)),
    }
  }
}

/**
 * The rule: the spare change to the next step (a whole unit; 100 yen for JPY), times the multiplier,
 * capped at the maximum. A whole-step purchase has no spare change and yields 0; so does a user with
 * round-ups turned off.
 */
export function computeRoundup(
  amount: bigint,
  settings: Pick<SettingsState, 'enabled' | 'multiplier' | 'max' | 'currency'>,
): {roundup: bigint; capped: boolean; reason: Roundup['reason']} {
  if (!settings.enabled) return {roundup: 0n, capped: false, reason: 'roundups_disabled'}
  const step = roundupStep(settings.currency)
  const spare = (step - (amount % step)) % step
  if (spare === 0n) return {roundup: 0n, capped: false, reason: 'no_spare_change'}
  const raw = spare * BigInt(settings.multiplier)
  return raw > settings.max
    ? {roundup: settings.max, capped: true, reason: null}
    : {roundup: raw, capped: false, reason: null}
}
