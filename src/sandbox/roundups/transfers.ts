import type {RoundupTransfer} from '../../contract/roundups.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {requireMinimum} from '../money/checks.js'
import type {WalletState} from '../money/ledger.js'
import {randomHex} from '../storage/ids.js'
import {transferOwner} from './schema.js'
import type {Destination, RoundupSettings, SettingsState} from './settings.js'
import {type RoundupStatements, type TransferRow, toTransfer} from './store.js'

/** Where the money of a transfer went: the transaction (its outgoing half) and how far it got. */
interface Moved {
  transactionId: string
  status: RoundupTransfer['status']
}

/** The transfers of users' pending round-ups to their destination, and their settlement. */
export class RoundupTransfers {
  constructor(
    private readonly deps: Pick<SandboxContext, 'database' | 'clock' | 'money' | 'events'>,
    private readonly q: RoundupStatements,
    private readonly settings: RoundupSettings,
  ) {}

  /**
   * Move every pending round-up of the partner's user, as one ledger transaction, from their wallet in the
   * round-up currency to the destination: a wallet-to-wallet transfer (completed at once), or an ACH
   * withdrawal to their bank account (processing until it settles on the sandbox clock).
   */
  transfer(partnerId: string, userId: string): RoundupTransfer {
    const {database, clock, money, events} = this.deps
    // One transaction for both destinations: the pending rows, their sum, the movement and the record.
    return database.transaction(() => {
      const settings = this.settings.settings(userId)
      const rows = this.q.pending.all(userId)
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
      const destination = this.settings.destination(partnerId, userId, settings.destination, currency)
      const source = money.ledger.walletOfUser(userId, currency, partnerId)
      if (source === undefined) {
        throw new ApiError('NOT_FOUND', `User ${userId} has no ${currency} wallet to take round-ups from`, {
          resource: 'wallet',
          userId,
          currency,
        })
      }
      const now = clock.now(partnerId)
      const row: TransferRow = {
        id: `rtr_${randomHex(12)}`,
        partner_id: partnerId,
        user_id: userId,
        amount: rows.reduce((sum, r) => sum + BigInt(r.roundup_amount), 0n).toString(),
        currency,
        roundup_count: rows.length,
        source_wallet_id: source.id,
        destination_account_id: settings.destination,
        destination_type: destination.type,
        transaction_id: '',
        status: 'processing',
        failure_reason: null,
        created_at: now.toISOString(),
        completed_at: null,
      }
      const moved = this.move(row, source, destination, settings, now)
      row.transaction_id = moved.transactionId
      row.status = moved.status
      if (moved.status === 'completed') row.completed_at = row.created_at
      this.insert(row)
      this.q.markTransferred.run(row.id, userId)
      const transfer = toTransfer(row)
      if (row.status === 'completed') {
        events.record('roundupsvc.transfer.completed', partnerId, {...transfer}, now)
      }
      return transfer
    })
  }

  /** Move the transfer's money through the kernel, to a wallet or out to a bank account by ACH. */
  private move(
    row: TransferRow,
    source: WalletState,
    destination: Destination,
    settings: SettingsState,
    now: Date,
  ): Moved {
    const {money} = this.deps
    const total = BigInt(row.amount)
    const {currency} = settings
    const description = `Round-ups ${row.id} (${row.roundup_count})`
    const opts = {description, metadata: {roundup_transfer_id: row.id}, owner: transferOwner(row.id)}
    if (destination.type === 'wallet') {
      const pair = money.transfer(source, destination.wallet, total, currency, now, opts)
      return {transactionId: pair.out.id, status: 'completed'}
    }
    requireMinimum(total, currency)
    const instrument = money.instrumentFor('ach', destination.paymentMethodId, row.partner_id)
    const payment = {method: 'ach' as const, amount: total, currency, instrument}
    const txn = money.withdraw(source, payment, now, opts)
    return {transactionId: txn.id, status: txn.status === 'completed' ? 'completed' : 'processing'}
  }

  private insert(row: TransferRow): void {
    this.q.insertTransfer.run(
      row.id,
      row.partner_id,
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
  }

  /**
   * Finish the bank transfers whose ACH withdrawal settled (the clock's due work): completed, or
   * failed with the round-ups pending again. Returns how many finished.
   */
  settleTransfers(partnerId: string, nowMs: number): number {
    const {database, money, events} = this.deps
    const rows = this.q.processingTransfers.all(partnerId)
    let finished = 0
    for (const row of rows) {
      const done = database.transaction(() => {
        const txn = money.records.get(row.transaction_id, row.partner_id)
        if (txn === undefined || txn.status === 'processing') return false
        const at = new Date(txn.completedAt ?? txn.estimatedCompletion ?? nowMs)
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
          events.record('roundupsvc.transfer.completed', row.partner_id, {...toTransfer(row)}, at)
        }
        return true
      })
      if (done) finished++
    }
    return finished
  }
}
