import {ApiError} from '../http/api-error.js'
import type {OwnerKinds} from '../money/owners.js'
import type {TxRecord} from '../money/records.js'

/**
 * What POST /transactions/{id}/refund refuses besides what cannot be refunded at all: a
 * transaction a product owns whose product counts it (a BNPL instalment is paid, a round-up
 * transfer transferred). Refunding one behind the product's back would leave that record wrong;
 * the product gives them back itself (cancelling a BNPL payment refunds its paid instalments).
 * The owner is on the transaction: no product's table is read.
 */
export function refuseOwned(record: TxRecord, owners: OwnerKinds): void {
  if (record.owner === null) return
  const refusal = owners.refusal(record.owner)
  if (refusal === undefined) return
  const {id} = record
  throw new ApiError(
    'TRANSACTION_NOT_REFUNDABLE',
    `Transaction ${id} cannot be refunded: ${refusal.reason}`,
    {
      id,
      reason: refusal.reason,
      owner: refusal.owner,
    },
  )
}
