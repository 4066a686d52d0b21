import type {Feature} from '../feature.js'
import {transactionRoutes} from './routes.js'
import {TransactionService} from './service.js'

/** POST /transactions and reading and refunding transactions (their table is the kernel's). */
export const transactions: Feature = {
  name: 'transactions',
  serve: (context) => ({routes: transactionRoutes(new TransactionService(context))}),
}
