import type {z} from 'zod'
import {minorToMajorText} from '../../contract/money.js'
import type {RefundRequestSchema, Transaction} from '../../contract/transactions.js'
import type {Database} from '../database.js'
import {ApiError} from '../errors.js'
import {jsonAmount} from '../json.js'
import {REFUNDABLE_DEPOSIT_METHODS} from '../money/catalog.js'
import {newTransactionId, type TxRecord, toTransaction} from '../money/records.js'
import {externalOf, type MoneyService} from '../money/service.js'

type Refund = z.output<typeof RefundRequestSchema>

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

/**
 * POST /transactions/{id}/refund: give back all or part of a completed card-like deposit,
 * wallet-to-wallet transfer or wallet-product payment, as a new `refund` transaction that reverses
 * the original's posting (docs/money.md#refunds).
 */
export function refundTransaction(
  money: MoneyService,
  partnerId: string,
  id: string,
  body: Refund,
): Transaction {
  return money.database.transaction(() => {
    const {original, kind} = refundable(money, partnerId, id)
    const amount = refundAmount(original, body)
    const now = money.clock.now()
    const nowIso = now.toISOString()
    const base: RefundBase = {
      partnerId,
      type: 'refund' as const,
      method: original.method,
      amount,
      currency: original.currency,
      paymentMethodId: original.paymentMethodId,
      description: body.reason ?? `Refund of ${original.id}`,
      originalId: original.id,
      completedAt: nowIso,
    }
    const refunds =
      kind === 'deposit'
        ? refundDeposit(money, original, base, nowIso)
        : kind === 'payment'
          ? refundPayment(money, original, base, nowIso)
          : refundTransfer(money, original, base, nowIso)
    markRefunded(money, partnerId, original, kind, amount)
    for (const r of refunds) money.emitTransaction(r, now)
    return toTransaction(refunds[0]!)
  })
}

/** The partner's transaction `id` and what kind of refund it takes: refused unless completed and refundable. */
function refundable(
  money: MoneyService,
  partnerId: string,
  id: string,
): {original: TxRecord; kind: RefundKind} {
  const original = money.records.get(id, partnerId)
  if (original === undefined) {
    throw new ApiError('NOT_FOUND', `No transaction ${id}`, {resource: 'transaction', id})
  }
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
  return {original, kind}
}

/** The amount asked for, or all that is left; never more than is left. */
function refundAmount(original: TxRecord, body: Refund): bigint {
  const remaining = original.amount - original.refundedAmount
  const amount = body.amount ?? remaining
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

/** A deposit goes back to where it came from, its fee in proportion. */
function refundDeposit(
  money: MoneyService,
  original: TxRecord,
  base: RefundBase,
  nowIso: string,
): TxRecord[] {
  const {partnerId, amount} = base
  const wallet = money.wallet(original.walletId, partnerId)
  money.check(money.activeProblem(wallet))
  // The fee goes back in proportion, so a full refund returns exactly what the deposit moved.
  const feeBack = (refunded: bigint) =>
    refunded === original.amount ? original.fee : (original.fee * refunded) / original.amount
  const fee = feeBack(original.refundedAmount + amount) - feeBack(original.refundedAmount)
  const debit = amount - fee
  money.check(money.fundsProblem(wallet, debit))
  const r = money.record({...base, walletId: wallet.id, fee, sourceWalletId: wallet.id}, nowIso)
  money.records.insert(r)
  money.ledger.post(
    partnerId,
    r.id,
    r.currency,
    [
      {wallet, bucket: 'available', amount: -debit},
      {external: 'fees', amount: -fee},
      {external: externalOf(original.method ?? 'card'), amount},
    ],
    nowIso,
  )
  return [r]
}

/** A wallet payment comes back from the merchants to the wallet. */
function refundPayment(
  money: MoneyService,
  original: TxRecord,
  base: RefundBase,
  nowIso: string,
): TxRecord[] {
  const {partnerId, amount} = base
  const wallet = money.wallet(original.walletId, partnerId)
  money.check(money.activeProblem(wallet))
  const r = money.record({...base, walletId: wallet.id, destinationWalletId: wallet.id}, nowIso)
  money.records.insert(r)
  money.ledger.post(
    partnerId,
    r.id,
    r.currency,
    [
      {external: 'merchants', amount: -amount},
      {wallet, bucket: 'available', amount},
    ],
    nowIso,
  )
  return [r]
}

/** A transfer goes back from its destination to its source: a refund record for each wallet. */
function refundTransfer(
  money: MoneyService,
  original: TxRecord,
  base: RefundBase,
  nowIso: string,
): TxRecord[] {
  const {partnerId, amount} = base
  const payer = money.wallet(original.sourceWalletId ?? '', partnerId)
  const payee = money.wallet(original.destinationWalletId ?? '', partnerId)
  money.check(money.activeProblem(payer))
  money.check(money.activeProblem(payee))
  money.check(money.fundsProblem(payee, amount))
  const backId = newTransactionId()
  const outId = newTransactionId()
  const fields = {...base, sourceWalletId: payee.id, destinationWalletId: payer.id}
  const back = money.record({...fields, id: backId, walletId: payer.id, pairedId: outId}, nowIso)
  const out = money.record(
    {...fields, id: outId, walletId: payee.id, pairedId: backId, originalId: original.pairedId},
    nowIso,
  )
  money.records.insert(back)
  money.records.insert(out)
  money.ledger.post(
    partnerId,
    back.id,
    back.currency,
    [
      {wallet: payee, bucket: 'available', amount: -amount},
      {wallet: payer, bucket: 'available', amount},
    ],
    nowIso,
  )
  return [back, out]
}

/** The original (and the incoming half of a transfer) count the refund, and are `refunded` once it is all back. */
function markRefunded(
  money: MoneyService,
  partnerId: string,
  original: TxRecord,
  kind: RefundKind,
  amount: bigint,
): void {
  const refunded = [original]
  if (kind === 'transfer_out' && original.pairedId !== null) {
    const incoming = money.records.get(original.pairedId, partnerId)
    if (incoming !== undefined) refunded.push(incoming)
  }
  for (const r of refunded) {
    r.refundedAmount += amount
    if (r.refundedAmount === r.amount) r.status = 'refunded'
    money.records.save(r)
  }
}

/**
 * A BNPL instalment and a round-up transfer belong to their product, whose record counts them
 * (paid, transferred): refunding one behind the product's back would leave that record wrong. The
 * product gives them back itself (cancelling a BNPL payment refunds its paid instalments).
 * This builds the check that refuses to refund them.
 */
export function productOwnedRefusal(database: Database): (id: string, partnerId: string) => void {
  const instalmentOf = database.prepare<{payment_id: string; number: number}>(
    `SELECT i.payment_id, i.number FROM bnpl_installments i JOIN bnpl_payments p ON p.id = i.payment_id
     WHERE i.transaction_id = ? AND p.partner_id = ?`,
  )
  const roundupTransferOf = database.prepare<{id: string}>(
    'SELECT id FROM roundup_transfers WHERE transaction_id = ? AND partner_id = ?',
  )
  return function refuseProductOwned(id: string, partnerId: string): void {
    const instalment = instalmentOf.get(id, partnerId)
    const transfer = roundupTransferOf.get(id, partnerId)
    if (instalment === undefined && transfer === undefined) return
    const [owner, reason] =
      instalment !== undefined
        ? [
            {product: 'bnplsvc', paymentId: instalment.payment_id, installment: instalment.number},
            `it is instalment ${instalment.number} of BNPL payment ${instalment.payment_id}; cancel the payment to refund what was paid`,
          ]
        : [
            {product: 'roundupsvc', transferId: transfer!.id},
            `it is round-up transfer ${transfer!.id}, which the round-ups product owns`,
          ]
    throw new ApiError('TRANSACTION_NOT_REFUNDABLE', `Transaction ${id} cannot be refunded: ${reason}`, {
      id,
      reason,
      owner,
    })
  }
}
