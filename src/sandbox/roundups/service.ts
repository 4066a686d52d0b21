import type {Currency} from '../../contract/currencies.js'
import {majorToMinor, minorToMajorText} from '../../contract/money.js'
import {
  DEFAULT_MAX_ROUNDUP,
  type PendingRoundups,
  type Roundup,
  type RoundupCurrency,
  type RoundupMultiplier,
  type RoundupSettingsRecord,
  type RoundupTransfer,
  roundupStep,
} from '../../contract/roundups.js'
import type {SandboxContext} from '../context.js'
import type {Database} from '../database.js'
import {ApiError} from '../errors.js'
import {randomHex} from '../ids.js'
import {jsonAmount, jsonMajor} from '../json.js'
import type {WalletState} from '../money/ledger.js'

/** Pending round-ups a pending list shows: the oldest. */
const PENDING_SHOWN = 100

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

interface SettingsRow {
  user_id: string
  enabled: number
  multiplier: number
  max_roundup_amount: string
  destination_account_id: string | null
  currency: RoundupCurrency
  created_at: string
  updated_at: string
}

interface RoundupRow {
  id: string
  user_id: string
  transaction_id: string
  merchant_name: string
  amount: string
  roundup_amount: string
  multiplier: number
  capped: number
  currency: RoundupCurrency
  status: Roundup['status']
  reason: Roundup['reason']
  transfer_id: string | null
  processed_at: string
}

interface TransferRow {
  id: string
  partner_id: string
  user_id: string
  amount: string
  currency: RoundupCurrency
  roundup_count: number
  source_wallet_id: string
  destination_account_id: string
  destination_type: RoundupTransfer['destination_type']
  transaction_id: string
  status: RoundupTransfer['status']
  failure_reason: string | null
  created_at: string
  completed_at: string | null
}

/** A purchase to round up, as POST /transactions/process takes it (amount in major units). */
interface Purchase {
  user_id: string
  amount: number
  merchant_name: string
  transaction_id: string
}

/** Where a transfer goes: another wallet of the round-up currency, or the user's bank account. */
type Destination =
  | {type: 'wallet'; wallet: WalletState}
  | {type: 'bank_account'; id: string; paymentMethodId: string}

function invalidField(field: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${message}`, {
    field,
    ...extra,
    issues: [{path: field, code: 'invalid_value', message}],
  })
}

/** `value` major units of `currency` in its smallest unit, or a VALIDATION_ERROR naming `field`. */
function minorOf(value: number, currency: Currency, field: string): bigint {
  try {
    return majorToMinor(value, currency)
  } catch (err) {
    throw invalidField(field, (err as Error).message)
  }
}

function statements(database: Database) {
  return {
    userPartner: database.prepare<{partner_id: string}>('SELECT partner_id FROM users WHERE id = ?'),
    settings: database.prepare<SettingsRow>('SELECT * FROM roundup_settings WHERE user_id = ?'),
    saveSettings: database.prepare(
      `INSERT INTO roundup_settings (user_id, partner_id, enabled, multiplier, max_roundup_amount,
         destination_account_id, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET enabled = excluded.enabled, multiplier = excluded.multiplier,
         max_roundup_amount = excluded.max_roundup_amount,
         destination_account_id = excluded.destination_account_id, currency = excluded.currency,
         updated_at = excluded.updated_at`,
    ),
    byTransaction: database.prepare<RoundupRow>(
      'SELECT * FROM roundups WHERE partner_id = ? AND transaction_id = ?',
    ),
    insertRoundup: database.prepare(
      `INSERT INTO roundups (id, partner_id, user_id, transaction_id, merchant_name, amount, roundup_amount,
         multiplier, capped, currency, status, reason, processed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    pending: database.prepare<RoundupRow>(
      "SELECT * FROM roundups WHERE user_id = ? AND status = 'pending' ORDER BY seq",
    ),
    markTransferred: database.prepare(
      "UPDATE roundups SET status = 'transferred', transfer_id = ? WHERE user_id = ? AND status = 'pending'",
    ),
    markPendingAgain: database.prepare(
      "UPDATE roundups SET status = 'pending', transfer_id = NULL WHERE transfer_id = ?",
    ),
    bankAccount: database.prepare<{user_id: string; payment_method_id: string}>(
      'SELECT user_id, payment_method_id FROM bank_accounts WHERE id = ? AND partner_id = ?',
    ),
    insertTransfer: database.prepare(
      `INSERT INTO roundup_transfers (id, partner_id, user_id, amount, currency, roundup_count, source_wallet_id,
         destination_account_id, destination_type, transaction_id, status, created_at, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    processingTransfers: database.prepare<TransferRow>(
      "SELECT * FROM roundup_transfers WHERE status = 'processing' ORDER BY seq",
    ),
    processingOf: database.prepare<{n: number}>(
      "SELECT COUNT(*) AS n FROM roundup_transfers WHERE user_id = ? AND status = 'processing'",
    ),
    finishTransfer: database.prepare(
      'UPDATE roundup_transfers SET status = ?, failure_reason = ?, completed_at = ? WHERE id = ?',
    ),
  }
}

/**
 * Round-ups over the ledger (docs/roundups.md): one settings record and one set of pending round-ups
 * per user, shared by the common endpoints and the `/roundupsvc` ones. Every method runs
 * synchronously in one database transaction.
 */
export class RoundupService {
  private readonly q: ReturnType<typeof statements>

  constructor(private readonly ctx: SandboxContext) {
    this.q = statements(ctx.database)
  }

  /** The user of a path: 404 when unknown (or another partner's). */
  requireUser(partnerId: string, userId: string): void {
    const row = this.q.userPartner.get(userId)
    if (row?.partner_id !== partnerId)
      throw new ApiError('NOT_FOUND', `No user ${userId}`, {resource: 'user', id: userId})
  }

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

  /** Apply `change` to the user's settings; the merged result is checked as a whole before it is saved. */
  write(partnerId: string, userId: string, change: SettingsChange): RoundupSettingsRecord {
    this.requireUser(partnerId, userId)
    return this.ctx.database.transaction(() => {
      const current = this.settings(userId)
      const currency = change.currency ?? current.currency
      if (currency !== current.currency) {
        // Pending round-ups, and those of a bank transfer that may still fail and come back, are
        // amounts in the current currency.
        const pending = this.pendingRows(userId)
        const inFlight = this.q.processingOf.get(userId)!.n
        if (pending.length > 0 || inFlight > 0) {
          const total = pending.reduce((sum, r) => sum + BigInt(r.roundup_amount), 0n)
          throw new ApiError(
            'ROUNDUP_CURRENCY_LOCKED',
            `User ${userId} has ${current.currency} round-ups not yet transferred (${minorToMajorText(total, current.currency)} pending, ${inFlight} transfer(s) processing): the currency can change once they are`,
            {
              field: 'currency',
              currency: current.currency,
              requested: currency,
              pending_total: jsonMajor(total, current.currency),
              pending_count: pending.length,
              processing_transfers: inFlight,
            },
          )
        }
      }
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
      const destination = change.destination === undefined ? current.destination : change.destination
      if (destination !== null) this.destination(partnerId, userId, destination, currency)
      const now = this.ctx.clock.now().toISOString()
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
   * Resolve a destination: a wallet of the partner in the round-up currency other than the user's own
   * (the source of transfers), or a bank account the user connected (USD only: it is paid by ACH).
   */
  private destination(partnerId: string, userId: string, id: string, currency: Currency): Destination {
    const refuse = (reason: string, message: string) =>
      new ApiError('INVALID_DESTINATION_ACCOUNT', message, {
        field: 'destination_account_id',
        value: id,
        reason,
      })
    const wallet = this.ctx.money.ledger.wallet(id, partnerId)
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
          `Wallet ${id} is where user ${userId}'s round-ups come from; choose another wallet or a connected bank account`,
        )
      }
      return {type: 'wallet', wallet}
    }
    const account = this.q.bankAccount.get(id, partnerId)
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
    throw refuse(
      'not_found',
      `No wallet or connected bank account ${id}: use a wallet id (wal_…) or one of GET /v1/users/${userId}/accounts`,
    )
  }

  private pendingRows(userId: string): RoundupRow[] {
    return this.q.pending.all(userId)
  }

  private toRoundup(row: RoundupRow, duplicate: boolean): Roundup {
    return {
      id: row.id,
      user_id: row.user_id,
      transaction_id: row.transaction_id,
      merchant_name: row.merchant_name,
      amount: jsonMajor(BigInt(row.amount), row.currency),
      roundup_amount: jsonMajor(BigInt(row.roundup_amount), row.currency),
      multiplier: row.multiplier as RoundupMultiplier,
      capped: row.capped === 1,
      currency: row.currency,
      status: row.status,
      reason: row.reason,
      transfer_id: row.transfer_id,
      processed_at: row.processed_at,
      duplicate,
    }
  }

  /**
   * POST /transactions/process: the round-up of one purchase, decided once per transaction_id. A
   * repeat with the same purchase answers the first result; the same id for another purchase is a
   * conflict.
   */
  process(partnerId: string, body: Purchase): Roundup {
    const user = this.q.userPartner.get(body.user_id)
    if (user?.partner_id !== partnerId) {
      throw new ApiError('INVALID_USER_ID', `No user ${body.user_id}`, {
        field: 'user_id',
        value: body.user_id,
      })
    }
    return this.ctx.database.transaction(() => {
      const existing = this.q.byTransaction.get(partnerId, body.transaction_id)
      if (existing !== undefined) return this.replay(existing, body)
      const settings = this.settings(body.user_id)
      const amount = minorOf(body.amount, settings.currency, 'amount')
      const {roundup, capped, reason} = computeRoundup(amount, settings)
      const now = this.ctx.clock.now()
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
      const result = this.toRoundup(row, false)
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
      return this.toRoundup(existing, true)
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
    this.ctx.money.emit('roundupsvc.roundup.processed', partnerId, data, now)
    const wallet = this.ctx.money.ledger.walletOfUser(processed.user_id, processed.currency, partnerId)
    this.ctx.money.emit(
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

  pending(partnerId: string, userId: string): PendingRoundups {
    this.requireUser(partnerId, userId)
    const rows = this.pendingRows(userId)
    const currency = this.settings(userId).currency
    const total = rows.reduce((sum, r) => sum + BigInt(r.roundup_amount), 0n)
    return {
      user_id: userId,
      currency,
      total: jsonMajor(total, currency),
      count: rows.length,
      // The answer stays bounded however many there are; count and total cover them all.
      roundups: rows.slice(0, PENDING_SHOWN).map((r) => this.toRoundup(r, false)),
    }
  }

  /**
   * Move every pending round-up of the user, as one ledger transaction, from their wallet in the
   * round-up currency to the destination: a wallet-to-wallet transfer (completed at once), or an ACH
   * withdrawal to their bank account (processing until it settles on the sandbox clock).
   */
  transfer(partnerId: string, userId: string): RoundupTransfer {
    this.requireUser(partnerId, userId)
    // Kept whole: both destinations share one transaction, its pending rows, their sum and the record.
    return this.ctx.database.transaction(() => {
      const settings = this.settings(userId)
      const rows = this.pendingRows(userId)
      const {currency} = settings
      if (rows.length === 0) {
        throw new ApiError('NO_PENDING_ROUNDUPS', `User ${userId} has no pending round-ups to transfer`, {
          userId,
          currency,
        })
      }
      if (settings.destination === null) {
        throw new ApiError(
          'ROUNDUP_DESTINATION_REQUIRED',
          `User ${userId} has no destination_account_id: set one in the round-up settings first`,
          {userId, field: 'destination_account_id'},
        )
      }
      const destination = this.destination(partnerId, userId, settings.destination, currency)
      const source = this.ctx.money.ledger.walletOfUser(userId, currency, partnerId)
      if (source === undefined) {
        throw new ApiError('NOT_FOUND', `User ${userId} has no ${currency} wallet to take round-ups from`, {
          resource: 'wallet',
          userId,
          currency,
        })
      }
      const total = rows.reduce((sum, r) => sum + BigInt(r.roundup_amount), 0n)
      const now = this.ctx.clock.now()
      const id = `rtr_${randomHex(12)}`
      const description = `Round-ups ${id} (${rows.length})`
      const metadata = {roundup_transfer_id: id}
      let transactionId: string
      let status: RoundupTransfer['status']
      if (destination.type === 'wallet') {
        const pair = this.ctx.money.transfer(source, destination.wallet, total, currency, now, {
          description,
          metadata,
        })
        transactionId = pair.out.id
        status = 'completed'
      } else {
        const txn = this.ctx.money.createTransaction(partnerId, {
          amount: total,
          currency,
          method: 'ach',
          sourceWalletId: source.id,
          paymentMethodId: destination.paymentMethodId,
          description,
          metadata,
        })
        transactionId = txn.id
        status = txn.status === 'completed' ? 'completed' : 'processing'
      }
      const row: TransferRow = {
        id,
        partner_id: partnerId,
        user_id: userId,
        amount: total.toString(),
        currency,
        roundup_count: rows.length,
        source_wallet_id: source.id,
        destination_account_id: settings.destination,
        destination_type: destination.type,
        transaction_id: transactionId,
        status,
        failure_reason: null,
        created_at: now.toISOString(),
        completed_at: status === 'completed' ? now.toISOString() : null,
      }
      this.q.insertTransfer.run(
        row.id,
        partnerId,
        row.user_id,
        row.amount,
        row.currency,
        row.roundup_count,
        row.source_wallet_id,
        row.destination_account_id,
        row.destination_type,
        row.transaction_id,
        row.status,
        row.created_at,
        row.completed_at,
      )
      this.q.markTransferred.run(id, userId)
      const transfer = toTransfer(row)
      if (status === 'completed') {
        this.ctx.money.emit('roundupsvc.transfer.completed', partnerId, {...transfer}, now)
      }
      return transfer
    })
  }

  /**
   * Finish the bank transfers whose ACH withdrawal settled (run on every settlement tick): completed,
   * or failed with the round-ups pending again. Returns how many finished.
   */
  settleTransfers(): number {
    const rows = this.q.processingTransfers.all()
    let finished = 0
    for (const row of rows) {
      const done = this.ctx.database.transaction(() => {
        const txn = this.ctx.money.records.get(row.transaction_id, row.partner_id)
        if (txn === undefined || txn.status === 'processing') return false
        const at = new Date(txn.completedAt ?? txn.estimatedCompletion ?? this.ctx.clock.now().toISOString())
        if (txn.status === 'completed') {
          row.status = 'completed'
          row.completed_at = at.toISOString()
        } else {
          row.status = 'failed'
          row.failure_reason = txn.failureReason ?? txn.status
          this.q.markPendingAgain.run(row.id)
        }
        this.q.finishTransfer.run(row.status, row.failure_reason, row.completed_at, row.id)
        // The spec has no failure event for round-up transfers; the withdrawal's transaction.failed tells.
        if (row.status === 'completed') {
          this.ctx.money.emit('roundupsvc.transfer.completed', row.partner_id, {...toTransfer(row)}, at)
        }
        return true
      })
      if (done) finished++
    }
    return finished
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

function toTransfer(row: TransferRow): RoundupTransfer {
  return {
    id: row.id,
    user_id: row.user_id,
    amount: jsonMajor(BigInt(row.amount), row.currency),
    currency: row.currency,
    roundup_count: row.roundup_count,
    source_wallet_id: row.source_wallet_id,
    destination_account_id: row.destination_account_id,
    destination_type: row.destination_type,
    transaction_id: row.transaction_id,
    status: row.status,
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    completed_at: row.completed_at,
  }
}
