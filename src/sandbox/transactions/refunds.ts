import type {z} from 'zod'
import type {Transaction} from '../../contract/resources.js'
import {ApiError} from '../errors.js'
import {jsonAmount} from '../json.js'
import type {RefundInput} from './amounts.js'
import {REFUNDABLE_DEPOSIT_METHODS} from './catalog.js'
import {newTransactionId, type TxRecord, toTransaction} from './records.js'
import {externalOf, type MoneyService} from './service.js'

type Refund = z.output<typeof RefundInput>

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
    const remaining = original.amount - original.refundedAmount
    const amount = body.amount ?? remaining
    if (amount > remaining) {
      throw new ApiError('AMOUNT_TOO_LARGE', `At most ${remaining} ${original.currency} is left to refund`, {
        field: 'amount',
        maximum: jsonAmount(remaining),
        currency: original.currency,
      })
    }
    const now = money.clock.now()
    const nowIso = now.toISOString()
    const base = {
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
    const refunds: TxRecord[] = []
    if (kind === 'deposit') {
      const wallet = money.wallet(original.walletId, partnerId)
      money.check(money.activeProblem(wallet))
      // The fee goes back in proportion, so a full refund returns exactly what the deposit moved.
      const feeBack = (refunded: bigint) =>
        refunded === original.amount ? original.fee : (original.fee * refunded) / original.amount
      const fee = feeBack(original.refundedAmount + amount) - feeBack(original.refundedAmount)
      const debit = amount - fee
      money.check(money.fundsProblem(wallet, debit))
      const r = money.record({...base, walletId: wallet.id, fee, sourceWalletId: wallet.id}, nowIso)
      refunds.push(r)
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
    } else if (kind === 'payment') {
      const wallet = money.wallet(original.walletId, partnerId)
      money.check(money.activeProblem(wallet))
      const r = money.record({...base, walletId: wallet.id, destinationWalletId: wallet.id}, nowIso)
      refunds.push(r)
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
    } else {
      // A transfer goes back from its destination to its source: a refund record for each wallet.
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
      refunds.push(back, out)
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
    }
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
    for (const r of refunds) money.emitTransaction(r, now)
    return toTransaction(refunds[0]!)
  })
}
