import {minorToMajorText} from '../../contract/money/amounts.js'
import {ApiError} from '../http/api-error.js'
import {jsonAmount} from '../http/json.js'
import {externalOf, REFUNDABLE_DEPOSIT_METHODS} from './catalog.js'
import {requireActive, requireFunds} from './checks.js'
import type {Posting, WalletState} from './ledger.js'
import {newRecord, newTransactionId, type TxRecord} from './records.js'
import type {MoneyService} from './service.js'

/** What a refund asks for: an amount (default: all that is left) and why. */
export interface Refund {
  amount?: bigint | undefined
  reason?: string | undefined
}

/** What a refund gives back: a card-like deposit, a wallet-to-wallet transfer, or a wallet payment. */
type RefundKind = 'deposit' | 'transfer_out' | 'payment'

/** The fields every refund record of one request shares. */
type RefundBase = Pick<
  TxRecord,
  | 'partnerId'
  | 'method'
  | 'amount'
  | 'currency'
  | 'paymentMethodId'
  | 'description'
  | 'originalId'
  | 'completedAt'
> & {type: 'refund'}

/** What a refund writes: its records, the one on the original's wallet first, and the posting that reverses the original's. */
interface Reversal {
  records: [TxRecord, ...TxRecord[]]
  postings: Posting[]
}

/**
 * Give back all or part of a completed card-like deposit, wallet-to-wallet transfer or wallet
 * payment, as a new `refund` transaction that reverses the original's posting
 * (docs/money.md#refunds). Returns the refund records, the one on the original's wallet first.
 */
export function refund(money: MoneyService, original: TxRecord, request: Refund): TxRecord[] {
  return money.database.transaction(() => {
    const {partnerId} = original
    const kind = refundable(original)
    const amount = refundAmount(original, request)
    const now = money.clock.now(partnerId)
    const nowIso = now.toISOString()
    const base: RefundBase = {
      partnerId,
      type: 'refund' as const,
      method: original.method,
      amount,
      currency: original.currency,
      paymentMethodId: original.paymentMethodId,
      description: request.reason ?? `Refund of ${original.id}`,
      originalId: original.id,
      completedAt: nowIso,
    }
    const {records, postings} =
      kind === 'deposit'
        ? refundDeposit(original, base, activeWallet(money, original), nowIso)
        : kind === 'payment'
          ? refundPayment(base, activeWallet(money, original), nowIso)
          : refundTransfer(money, original, base, nowIso)
    money.book(records, postings, nowIso)
    markRefunded(money, original, kind, amount)
    for (const r of records) money.events.transaction(r, now)
    return records
  })
}

/** What kind of refund the transaction takes: refused unless completed and refundable. */
function refundable(original: TxRecord): RefundKind {
  const {id} = original
  const kind =
    original.type === 'deposit' && REFUNDABLE_DEPOSIT_METHODS.has(original.method ?? '')
      ? 'deposit'
      : original.type === 'transfer_out' || original.type === 'payment'
        ? original.type
        : undefined
  const notRefundable = (reason: string) =>
    new ApiError('TRANSACTION_NOT_REFUNDABLE', `Transaction ${id} cannot be refunded: ${reason}`, {
      id,
      type: original.type,
      method: original.method,
      status: original.status,
      reason,
    })
  if (kind === undefined) {
    throw notRefundable(
      'only card, Apple Pay and Google Pay deposits, wallet-to-wallet transfers (their transfer_out) and wallet payments can be refunded',
    )
  }
  if (original.status !== 'completed') {
    throw notRefundable(
      original.status === 'refunded' ? 'it is already fully refunded' : `it is ${original.status}`,
    )
  }
  return kind
}

/** The amount asked for, or all that is left; never more than is left. */
function refundAmount(original: TxRecord, request: Refund): bigint {
  const remaining = original.amount - original.refundedAmount
  const amount = request.amount ?? remaining
  if (amount > remaining) {
    throw new ApiError(
      'AMOUNT_TOO_LARGE',
      `At most ${minorToMajorText(remaining, original.currency)} ${original.currency} is left to refund`,
      {
        field: 'amount',
        maximum: jsonAmount(remaining),
        currency: original.currency,
      },
    )
  }
  return amount
}

/** The wallet a deposit or a payment moved money in or out of, where its refund moves it back. */
function activeWallet(money: MoneyService, original: TxRecord): WalletState {
  const wallet = money.wallet(original.walletId, original.partnerId)
  requireActive(wallet)
  return wallet
}

/** A deposit goes back to where it came from, its fee in proportion. */
function refundDeposit(original: TxRecord, base: RefundBase, wallet: WalletState, nowIso: string): Reversal {
  const {amount} = base
  // The fee goes back in proportion, so a full refund returns exactly what the deposit moved.
  const feeBack = (refunded: bigint) =>
    refunded === original.amount ? original.fee : (original.fee * refunded) / original.amount
  const fee = feeBack(original.refundedAmount + amount) - feeBack(original.refundedAmount)
  const debit = amount - fee
  requireFunds(wallet, debit)
  return {
    records: [newRecord({...base, walletId: wallet.id, fee, sourceWalletId: wallet.id}, nowIso)],
    postings: [
      {wallet, bucket: 'available', amount: -debit},
      {external: 'fees', amount: -fee},
      {external: externalOf(original.method ?? 'card'), amount},
    ],
  }
}

/** A wallet payment comes back from the merchants to the wallet. */
function refundPayment(base: RefundBase, wallet: WalletState, nowIso: string): Reversal {
  const {amount} = base
  return {
    records: [newRecord({...base, walletId: wallet.id, destinationWalletId: wallet.id}, nowIso)],
    postings: [
      {external: 'merchants', amount: -amount},
      {wallet, bucket: 'available', amount},
    ],
  }
}

/** A transfer goes back from its destination to its source: a refund record for each wallet. */
function refundTransfer(money: MoneyService, original: TxRecord, base: RefundBase, nowIso: string): Reversal {
  const {partnerId, amount} = base
  const payer = money.wallet(original.sourceWalletId ?? '', partnerId)
  const payee = money.wallet(original.destinationWalletId ?? '', partnerId)
  requireActive(payer)
  requireActive(payee)
  requireFunds(payee, amount)
  const backId = newTransactionId()
  const outId = newTransactionId()
  const fields = {...base, sourceWalletId: payee.id, destinationWalletId: payer.id}
  const back = newRecord({...fields, id: backId, walletId: payer.id, pairedId: outId}, nowIso)
  const out = newRecord(
    {...fields, id: outId, walletId: payee.id, pairedId: backId, originalId: original.pairedId},
    nowIso,
  )
  return {
    records: [back, out],
    postings: [
      {wallet: payee, bucket: 'available', amount: -amount},
      {wallet: payer, bucket: 'available', amount},
    ],
  }
}

/** The original (and the incoming half of a transfer) count the refund, and are `refunded` once it is all back. */
function markRefunded(money: MoneyService, original: TxRecord, kind: RefundKind, amount: bigint): void {
  const refunded = [original]
  if (kind === 'transfer_out' && original.pairedId !== null) {
    const incoming = money.records.get(original.pairedId, original.partnerId)
    if (incoming !== undefined) refunded.push(incoming)
  }
  for (const r of refunded) {
    r.refundedAmount += amount
    if (r.refundedAmount === r.amount) r.status = 'refunded'
    money.records.save(r)
  }
}
