import type {SQLInputValue} from 'node:sqlite'
import type {Currency} from '../../contract/money/currencies.js'
import type {Transaction} from '../../contract/transactions.js'
import {jsonAmount} from '../http/json.js'
import type {Database, Statement} from '../storage/database.js'
import {timeOrderedHex} from '../storage/ids.js'
import {RowsInsert} from '../storage/rows.js'
import type {Method} from './catalog.js'
import type {Owner} from './owners.js'

export const newTransactionId = () => `txn_${timeOrderedHex()}`

/** How a processing transaction ends when its time comes. */
export type Outcome = 'complete' | 'fail'

/** A transaction record as stored; amounts as bigint. */
export interface TxRecord {
  seq?: number
  id: string
  partnerId: string
  /** The wallet whose history lists this record (transfers have one record per wallet). */
  walletId: string
  type: Transaction['type']
  status: Transaction['status']
  method: Method | null
  amount: bigint
  currency: Currency
  fee: bigint
  netAmount: bigint
  sourceWalletId: string | null
  destinationWalletId: string | null
  paymentMethodId: string | null
  description: string | null
  metadata: Record<string, string> | null
  /** The other record of a transfer pair (or of a refund pair). */
  pairedId: string | null
  /** The transaction a refund returns. */
  originalId: string | null
  refundedAmount: bigint
  failureReason: string | null
  outcome: Outcome | null
  /** Sandbox-clock milliseconds at which a processing transaction settles. */
  settlesAt: number | null
  createdAt: string
  completedAt: string | null
  estimatedCompletion: string | null
  /** The product that moved the money through the kernel, if one did. */
  owner: Owner | null
}

export interface TxRow {
  seq: number
  id: string
  partner_id: string
  wallet_id: string
  type: Transaction['type']
  status: Transaction['status']
  method: Method | null
  amount: string
  currency: Currency
  fee: string
  net_amount: string
  source_wallet_id: string | null
  destination_wallet_id: string | null
  payment_method_id: string | null
  description: string | null
  metadata: string | null
  paired_id: string | null
  original_id: string | null
  refunded_amount: string
  failure_reason: string | null
  outcome: Outcome | null
  settles_at: number | null
  created_at: string
  completed_at: string | null
  estimated_completion: string | null
  owner_kind: string | null
  owner_id: string | null
}

export function fromRow(row: TxRow): TxRecord {
  return {
    seq: row.seq,
    id: row.id,
    partnerId: row.partner_id,
    walletId: row.wallet_id,
    type: row.type,
    status: row.status,
    method: row.method,
    amount: BigInt(row.amount),
    currency: row.currency,
    fee: BigInt(row.fee),
    netAmount: BigInt(row.net_amount),
    sourceWalletId: row.source_wallet_id,
    destinationWalletId: row.destination_wallet_id,
    paymentMethodId: row.payment_method_id,
    description: row.description,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    pairedId: row.paired_id,
    originalId: row.original_id,
    refundedAmount: BigInt(row.refunded_amount),
    failureReason: row.failure_reason,
    outcome: row.outcome,
    settlesAt: row.settles_at,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    estimatedCompletion: row.estimated_completion,
    owner: row.owner_kind === null || row.owner_id === null ? null : {kind: row.owner_kind, id: row.owner_id},
  }
}

/** A new transaction record with the defaults of a completed, fee-free movement. */
export function newRecord(
  fields: Partial<TxRecord> & Pick<TxRecord, 'partnerId' | 'walletId' | 'type' | 'amount' | 'currency'>,
  nowIso: string,
): TxRecord {
  return {
    id: newTransactionId(),
    status: 'completed',
    method: null,
    fee: 0n,
    netAmount: fields.amount - (fields.fee ?? 0n),
    sourceWalletId: null,
    destinationWalletId: null,
    paymentMethodId: null,
    description: null,
    metadata: null,
    pairedId: null,
    originalId: null,
    refundedAmount: 0n,
    failureReason: null,
    outcome: null,
    settlesAt: null,
    createdAt: nowIso,
    completedAt: null,
    estimatedCompletion: null,
    owner: null,
    ...fields,
  }
}

/** The record as the API shows it; optional fields appear only when they apply. */
export function toTransaction(r: TxRecord): Transaction {
  const t: Transaction = {
    id: r.id,
    type: r.type,
    status: r.status,
    amount: jsonAmount(r.amount),
    currency: r.currency,
    fee: jsonAmount(r.fee),
    netAmount: jsonAmount(r.netAmount),
    createdAt: r.createdAt,
    completedAt: r.completedAt,
  }
  if (r.method !== null) t.method = r.method
  if (r.sourceWalletId !== null) t.sourceWalletId = r.sourceWalletId
  if (r.destinationWalletId !== null) t.destinationWalletId = r.destinationWalletId
  if (r.paymentMethodId !== null) t.paymentMethodId = r.paymentMethodId
  if (r.description !== null) t.description = r.description
  if (r.metadata !== null) t.metadata = r.metadata
  if (r.estimatedCompletion !== null) t.estimatedCompletion = r.estimatedCompletion
  if (r.failureReason !== null) t.failureReason = r.failureReason
  if (r.pairedId !== null) t.pairedTransactionId = r.pairedId
  if (r.originalId !== null) t.originalTransactionId = r.originalId
  if (r.refundedAmount > 0n) t.refundedAmount = jsonAmount(r.refundedAmount)
  return t
}

/** A record's values, in the order of TransactionStore's INSERT. */
function rowOf(r: TxRecord): SQLInputValue[] {
  return [
    r.id,
    r.partnerId,
    r.walletId,
    r.type,
    r.status,
    r.method,
    r.amount.toString(),
    r.currency,
    r.fee.toString(),
    r.netAmount.toString(),
    r.sourceWalletId,
    r.destinationWalletId,
    r.paymentMethodId,
    r.description,
    r.metadata === null ? null : JSON.stringify(r.metadata),
    r.pairedId,
    r.originalId,
    r.refundedAmount.toString(),
    r.failureReason,
    r.outcome,
    r.settlesAt,
    r.createdAt,
    r.completedAt,
    r.estimatedCompletion,
    r.owner?.kind ?? null,
    r.owner?.id ?? null,
  ]
}

/** The `transactions` table. */
export class TransactionStore {
  private readonly insertRows: RowsInsert
  private readonly byId: Statement<TxRow>
  private readonly saveState: Statement
  private readonly dueRows: Statement<TxRow>
  private readonly processingOf: Statement<{processing: number}>

  constructor(database: Database) {
    this.insertRows = new RowsInsert(
      database,
      `INSERT INTO transactions (id, partner_id, wallet_id, type, status, method, amount, currency, fee,
         net_amount, source_wallet_id, destination_wallet_id, payment_method_id, description, metadata,
         paired_id, original_id, refunded_amount, failure_reason, outcome, settles_at, created_at,
         completed_at, estimated_completion, owner_kind, owner_id)`,
      26,
    )
    this.byId = database.prepare<TxRow>('SELECT * FROM transactions WHERE id = ?')
    this.saveState = database.prepare(
      `UPDATE transactions SET status = ?, refunded_amount = ?, failure_reason = ?, completed_at = ?,
         settles_at = ? WHERE id = ?`,
    )
    // Through the index of what is due, always: left to itself SQLite picks the partner's index and
    // reads every transaction the partner ever made, at every tick of the settlement timer.
    this.dueRows = database.prepare<TxRow>(
      "SELECT * FROM transactions INDEXED BY transactions_due WHERE status = 'processing' AND settles_at <= ? AND partner_id = ? ORDER BY settles_at, seq LIMIT ?",
    )
    this.processingOf = database.prepare<{processing: number}>(
      "SELECT 1 AS processing FROM transactions WHERE wallet_id = ? AND status = 'processing' LIMIT 1",
    )
  }

  insert(r: TxRecord): void {
    this.insertRows.hold([rowOf(r)])
  }

  /** Insert `records` in one statement (a transfer's two), or hold them back to the group commit. */
  insertAll(records: readonly TxRecord[]): void {
    this.insertRows.hold(records.map(rowOf))
  }

  /** The record `id` of `partnerId`, or undefined. */
  get(id: string, partnerId: string): TxRecord | undefined {
    const row = this.byId.get(id)
    return row === undefined || row.partner_id !== partnerId ? undefined : fromRow(row)
  }

  /** Store a record's status, refunded amount, failure reason and completion time. */
  save(r: TxRecord): void {
    this.saveState.run(
      r.status,
      r.refundedAmount.toString(),
      r.failureReason,
      r.completedAt,
      r.settlesAt,
      r.id,
    )
  }

  /** The partner's processing records due by `nowMs` on its clock, oldest first. */
  due(partnerId: string, nowMs: number, limit: number): TxRecord[] {
    return this.dueRows.all(nowMs, partnerId, limit).map(fromRow)
  }

  /** Whether a payment of the wallet is still processing (it has not settled yet). */
  awaitsSettlement(walletId: string): boolean {
    return this.processingOf.get(walletId) !== undefined
  }
}
