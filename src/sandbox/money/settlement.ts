import type {SandboxClock} from '../clock.js'
import type {Database} from '../storage/database.js'
import {ACH_RETURN_REASON, externalOf} from './catalog.js'
import type {MoneyEvents} from './events.js'
import type {Ledger, Posting, WalletState} from './ledger.js'
import type {TransactionStore, TxRecord} from './records.js'

const SETTLE_BATCH = 200

/**
 * The settlement of asynchronous payments (ACH, wire, crypto): each processing transaction
 * completes, or fails back where it came from, when its time comes on the sandbox clock, as the
 * real service's processor would report days later.
 */
export class Settlement {
  constructor(
    private readonly deps: {
      database: Database
      clock: SandboxClock
      ledger: Ledger
      records: TransactionStore
      events: MoneyEvents
    },
  ) {}

  /** Settle every processing transaction of the partner due by `nowMs`; returns how many settled. */
  settleDue(partnerId: string, nowMs: number): number {
    const {database, records} = this.deps
    let settled = 0
    for (;;) {
      const batch = database.transaction(() => {
        const due = records.due(partnerId, nowMs, SETTLE_BATCH)
        for (const r of due) this.settle(r)
        return due.length
      })
      settled += batch
      if (batch < SETTLE_BATCH) return settled
    }
  }

  /** Finish one processing transaction at its scheduled time: completed, or failed (a returned ACH). */
  private settle(r: TxRecord): void {
    const {clock, ledger, records, events} = this.deps
    const at = new Date(r.settlesAt ?? clock.nowMs(r.partnerId))
    const atIso = at.toISOString()
    const wallet = ledger.wallet(r.walletId, r.partnerId)
    if (wallet === undefined) throw new Error(`transaction ${r.id} belongs to no wallet`)
    if (r.outcome === 'fail') {
      r.status = 'failed'
      r.failureReason = ACH_RETURN_REASON
    } else {
      r.status = 'completed'
      r.completedAt = atIso
    }
    r.settlesAt = null
    records.save(r)
    ledger.post(r.partnerId, r.id, r.currency, settlementPostings(r, wallet), atIso)
    events.transaction(r, at)
    if (r.type === 'withdrawal') events.transfer(r, at)
  }
}

/** Where a settled payment's money goes: on, or (failed) back where it came from, fee included. */
function settlementPostings(r: TxRecord, wallet: WalletState): Posting[] {
  const external = externalOf(r.method ?? 'wire')
  if (r.status === 'failed') {
    return r.type === 'deposit'
      ? [
          {wallet, bucket: 'pending', amount: -r.netAmount},
          {external: 'fees', amount: -r.fee},
          {external, amount: r.amount},
        ]
      : [
          {wallet, bucket: 'reserved', amount: -r.amount},
          {wallet, bucket: 'available', amount: r.amount},
        ]
  }
  return r.type === 'deposit'
    ? [
        {wallet, bucket: 'pending', amount: -r.netAmount},
        {wallet, bucket: 'available', amount: r.netAmount},
      ]
    : [
        {wallet, bucket: 'reserved', amount: -r.amount},
        {external, amount: r.netAmount},
        {external: 'fees', amount: r.fee},
      ]
}
