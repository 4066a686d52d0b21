import type {Database} from '../database.js'
import {ApiError} from '../errors.js'

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
