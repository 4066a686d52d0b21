import {endpoints} from '../../contract/endpoints.js'
import type {Transaction} from '../../contract/resources.js'
import {
  AdvanceClockSchema,
  ListTransactionsQuerySchema,
  type TransactionList,
} from '../../contract/transactions.js'
import {applyBnplSchema} from '../bnpl/schema.js'
import {callerOf, type RouteSpec, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {DEFAULT_PAGE_SIZE, Pagination} from '../pagination.js'
import {applyRoundupSchema} from '../roundups/schema.js'
import {CreateTransactionInput, RefundInput} from '../transactions/amounts.js'
import {toTransaction} from '../transactions/records.js'
import {refundTransaction} from '../transactions/refunds.js'
import {parseInput} from '../validation.js'

const pages = new Pagination('transactions', 'newest first')

/** POST /transactions and the transaction operations, and the sandbox clock. */
export function transactionRoutes(ctx: SandboxContext): RouteSpec[] {
  const {money, clock} = ctx
  // The products' tables, to tell their transactions apart (created here if this runs first).
  applyBnplSchema(ctx.database)
  applyRoundupSchema(ctx.database)
  const instalmentOf = ctx.database.db.prepare(
    `SELECT i.payment_id, i.number FROM bnpl_installments i JOIN bnpl_payments p ON p.id = i.payment_id
     WHERE i.transaction_id = ? AND p.partner_id = ?`,
  )
  const roundupTransferOf = ctx.database.db.prepare(
    'SELECT id FROM roundup_transfers WHERE transaction_id = ? AND partner_id = ?',
  )
  /**
   * A BNPL instalment and a round-up transfer belong to their product, whose record counts them
   * (paid, transferred): refunding one behind the product's back would leave that record wrong. The
   * product gives them back itself (cancelling a BNPL payment refunds its paid instalments).
   */
  function refuseProductOwned(id: string, partnerId: string): void {
    const instalment = instalmentOf.get(id, partnerId) as {payment_id: string; number: number} | undefined
    const transfer = roundupTransferOf.get(id, partnerId) as {id: string} | undefined
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
  return [
    {
      endpoint: endpoints.createTransaction,
      run(input): Transaction {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(CreateTransactionInput, input.body, 'request body')
        return money.createTransaction(partnerId, body)
      },
    },
    {
      endpoint: endpoints.getTransaction,
      run(input): Transaction {
        const partnerId = callerOf(input).partner.partnerId
        const id = input.params.id ?? ''
        const record = money.records.get(id, partnerId)
        if (record === undefined)
          throw new ApiError('NOT_FOUND', `No transaction ${id}`, {resource: 'transaction', id})
        return toTransaction(record)
      },
    },
    {
      endpoint: endpoints.listTransactions,
      run(input): TransactionList {
        const partnerId = callerOf(input).partner.partnerId
        const query = parseInput(ListTransactionsQuerySchema, input.query, 'query')
        const limit = query.limit ?? DEFAULT_PAGE_SIZE
        const rows = money.records.list({
          partnerId,
          walletId: query.walletId,
          userId: query.userId,
          status: query.status,
          type: query.type,
          before: pages.start(query.cursor),
          limit: limit + 1,
        })
        const {shown, hasMore, nextCursor} = pages.page(rows, limit)
        return {transactions: shown.map(toTransaction), hasMore, nextCursor}
      },
    },
    {
      endpoint: endpoints.refundTransaction,
      run(input): Transaction {
        const partnerId = callerOf(input).partner.partnerId
        // No body refunds whatever is left.
        const body = parseInput(RefundInput, input.body ?? {}, 'request body')
        const id = input.params.id ?? ''
        refuseProductOwned(id, partnerId)
        return refundTransaction(money, partnerId, id, body)
      },
    },
    {
      endpoint: endpoints.sandboxAdvanceClock,
      run(input) {
        const caller = callerOf(input).partner.partnerId
        // One clock dates and settles every partner's records in the data file: only the partner
        // this sandbox was started for may move it (docs/sandbox.md#the-sandbox-clock).
        if (caller !== ctx.partners.served) {
          throw new ApiError(
            'INSUFFICIENT_PERMISSIONS',
            `The sandbox clock belongs to partner ${ctx.partners.served}, which this sandbox was started for`,
            {partnerId: caller},
          )
        }
        const {seconds} = parseInput(AdvanceClockSchema, input.body, 'request body')
        clock.advance(seconds)
        const settled = money.settleDue()
        return {now: clock.now().toISOString(), offsetSeconds: clock.offsetSeconds, settled}
      },
    },
  ]
}
