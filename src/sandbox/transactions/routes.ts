import {endpoints} from '../../contract/api/endpoints.js'
import type {Transaction, TransactionList} from '../../contract/transactions.js'
import {partnerOf, type RouteSpec, route} from '../context.js'
import type {TransactionService} from './service.js'

/** POST /transactions and the transaction operations. */
export function transactionRoutes(transactions: TransactionService): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.createTransaction,
      run: (input): Transaction => transactions.create(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.getTransaction,
      run: (input): Transaction => transactions.get(partnerOf(input), input.params.id),
    }),
    route({
      endpoint: endpoints.listTransactions,
      run: (input): TransactionList => transactions.list(partnerOf(input), input.query),
    }),
    route({
      endpoint: endpoints.refundTransaction,
      // No body (no amount) refunds whatever is left.
      run: (input): Transaction => transactions.refund(partnerOf(input), input.params.id, input.body ?? {}),
    }),
  ]
}
