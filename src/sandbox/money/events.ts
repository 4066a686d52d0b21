import {type EventLog, type EventToRecord, subjectsOf} from '../event-log.js'
import {jsonAmount} from '../http/json.js'
import type {TxRecord} from './records.js'

/** The transaction's metadata, when it has some: what a receiver matches the event to its order with. */
const metadataOf = (r: TxRecord) =>
  r.metadata !== null && Object.keys(r.metadata).length > 0 ? {metadata: r.metadata} : {}

/** A transaction's event data as the spec shows it, and its metadata. */
function transactionEventData(r: TxRecord): Record<string, unknown> {
  const data =
    r.status === 'failed'
      ? {
          id: r.id,
          amount: jsonAmount(r.amount),
          currency: r.currency,
          status: r.status,
          failureReason: r.failureReason,
        }
      : {
          id: r.id,
          amount: jsonAmount(r.amount),
          currency: r.currency,
          status: r.status,
          completedAt: r.completedAt,
        }
  return {...data, ...metadataOf(r)}
}

/** `transfer.completed` / `transfer.failed`: the spec shows `transferId` and its snake_case twin. */
function transferEventData(r: TxRecord): Record<string, unknown> {
  const data: Record<string, unknown> = {
    transferId: r.id,
    transfer_id: r.id,
    type: r.type,
    amount: jsonAmount(r.amount),
    currency: r.currency,
    status: r.status,
    sourceWalletId: r.sourceWalletId,
  }
  if (r.destinationWalletId !== null) data.destinationWalletId = r.destinationWalletId
  if (r.failureReason !== null) data.failureReason = r.failureReason
  return {...data, ...metadataOf(r)}
}

/**
 * What a transaction's event is about: the transaction, the wallets it touches and its other record
 * (the other leg of a transfer, what a refund returns), so that each side finds it (event-log.ts,
 * subjectsOf), and any id its metadata names. Its other data names no id but the transaction's
 * and its wallets', so the data need not be read.
 */
const subjectsOfRecord = (r: TxRecord) =>
  subjectsOf(r.metadata, [
    r.id,
    r.walletId,
    r.sourceWalletId,
    r.destinationWalletId,
    r.pairedId,
    r.originalId,
  ])

/**
 * `transaction.completed` or `.failed` for `r`, or `transfer.completed` or `.failed` for a transfer's
 * outgoing record or a withdrawal, as EventLog.recordAll takes it.
 */
const eventOf = (kind: 'transaction' | 'transfer', r: TxRecord, now: Date): EventToRecord => ({
  type: `${kind}.${r.status === 'failed' ? 'failed' : 'completed'}`,
  partnerId: r.partnerId,
  data: kind === 'transaction' ? transactionEventData(r) : transferEventData(r),
  now,
  subjects: subjectsOfRecord(r),
})

/** The events the kernel records for the money it moves (docs/money.md#events). */
export class MoneyEvents {
  constructor(private readonly log: EventLog) {}

  /** `transaction.completed` or `transaction.failed` for `r`. */
  transaction(r: TxRecord, now: Date): void {
    this.log.recordAll([eventOf('transaction', r, now)])
  }

  /** A transfer's three events, recorded together: each record's transaction event, then the transfer's. */
  transferred(out: TxRecord, incoming: TxRecord, now: Date): void {
    this.log.recordAll([
      eventOf('transaction', out, now),
      eventOf('transaction', incoming, now),
      eventOf('transfer', out, now),
    ])
  }

  /** `transfer.completed` or `transfer.failed` for a transfer's outgoing record or a withdrawal. */
  transfer(r: TxRecord, now: Date): void {
    this.log.recordAll([eventOf('transfer', r, now)])
  }
}
