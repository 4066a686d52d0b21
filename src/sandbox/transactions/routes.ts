import {endpoints} from '../../contract/endpoints.js'
import type {Transaction, TransactionList} from '../../contract/transactions.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {toTransaction} from '../money/records.js'
import {DEFAULT_PAGE_SIZE, Pagination} from '../pagination.js'
import {productOwnedRefusal, refundTransaction} from './refunds.js'

const pages = new Pagination('transactions', 'newest first')

/** POST /transactions and the transaction operations. */
export function transactionRoutes(ctx: SandboxContext): RouteSpec[] {
  const {money} = ctx
  const refuseProductOwned = productOwnedRefusal(ctx.database)
  return [
    route({
      endpoint: endpoints.createTransaction,
      run(input): Transaction {
        const partnerId = partnerOf(input)
        return money.createTransaction(partnerId, input.body)
      },
    }),
    route({
      endpoint: endpoints.getTransaction,
      run(input): Transaction {
        const partnerId = partnerOf(input)
        const id = input.params.id
        const record = money.records.get(id, partnerId)
        if (record === undefined)
          throw new ApiError('NOT_FOUND', `No transaction ${id}`, {resource: 'transaction', id})
        return toTransaction(record)
      },
    }),
    route({
      endpoint: endpoints.listTransactions,
      run(input): TransactionList {
        const partnerId = partnerOf(input)
        const {query} = input
        const limit = query.limit ?? DEFAULT_PAGE_SIZE
        const list = pages.of(ctx.cursors, partnerId)
        const rows = money.records.list({
          partnerId,
          walletId: query.walletId,
          userId: query.userId,
          status: query.status,
          type: query.type,
          before: list.start(query.cursor),
          limit: limit + 1,
        })
        const {shown, hasMore, nextCursor} = list.page(rows, limit)
        return {transactions: shown.map(toTransaction), hasMore, nextCursor}
      },
    }),
    route({
      endpoint: endpoints.refundTransaction,
      run(input): Transaction {
        const partnerId = partnerOf(input)
        const id = input.params.id
        refuseProductOwned(id, partnerId)
        // No body (no amount) refunds whatever is left.
        return refundTransaction(money, partnerId, id, input.body)
      },
    }),
  ]
}
