import type {z} from 'zod'
import {instantOf} from '../../contract/fields.js'
import {
  type CreateTransactionSchema,
  partiesProblem,
  type Transaction,
  type TransactionList,
} from '../../contract/transactions.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {PagedList} from '../http/pagination.js'
import {acceptsMethod, type Instrument, supportedMethods} from '../money/catalog.js'
import {requireMinimum, supportedCurrency} from '../money/checks.js'
import {fromRow, type TxRow, toTransaction} from '../money/records.js'
import {type Refund, refund} from '../money/refunds.js'
import {refuseOwned} from './owned-refunds.js'

type CreateTransaction = z.output<typeof CreateTransactionSchema>
type ListQuery = {
  walletId?: string | undefined
  userId?: string | undefined
  status?: string | undefined
  type?: string | undefined
  since?: string | undefined
  until?: string | undefined
  cursor?: string | undefined
  limit?: number | undefined
}

/** The wallets and payment method a transaction names must fit its method (the contract's rules). */
function checkParties(body: CreateTransaction): void {
  const problem = partiesProblem(body)
  if (problem === undefined) return
  const {field, reason} = problem
  if (field === 'paymentMethodId' && problem.kind === 'conflict') {
    throw new ApiError('INVALID_PAYMENT_METHOD', reason, {
      field,
      paymentMethodId: body.paymentMethodId,
      method: body.method,
    })
  }
  throw new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${reason}`, {
    field,
    issues: [{path: field, code: 'invalid_conditional', message: reason}],
  })
}

/** POST /transactions and the reading of transactions, over the kernel's movements and records. */
export class TransactionService {
  readonly #list: PagedList<TxRow, 'walletId' | 'userId' | 'status' | 'type' | 'since' | 'until'>

  constructor(
    private readonly deps: Pick<
      SandboxContext,
      'database' | 'clock' | 'money' | 'cursors' | 'owners' | 'tenants'
    >,
  ) {
    this.#list = new PagedList(deps.database, deps.cursors, {
      name: 'transactions',
      table: 'transactions',
      order: 'newest first',
      filters: {
        walletId: 'wallet_id = ?',
        userId: 'wallet_id IN (SELECT id FROM wallets WHERE user_id = ?)',
        status: 'status = ?',
        type: 'type = ?',
        since: 'created_at >= ?',
        until: 'created_at < ?',
      },
    })
  }

  /** POST /transactions: the create rules, then the kernel's deposit, withdrawal or transfer. */
  create(partnerId: string, body: CreateTransaction): Transaction {
    const {database, clock, money} = this.deps
    const currency = supportedCurrency(body.currency)
    const {method, amount} = body
    if (!acceptsMethod(currency, method)) {
      const supported = supportedMethods(currency)
      throw new ApiError(
        'INVALID_PAYMENT_METHOD',
        method === 'ach'
          ? `ACH is US-only: it takes USD, not ${currency}`
          : `Method ${method} is not available for ${currency}`,
        {field: 'method', method, currency, supported: [...supported]},
      )
    }
    checkParties(body)
    requireMinimum(amount, currency)

    return database.transaction(() => {
      const now = clock.now(partnerId)
      const instrument: Instrument | undefined =
        method !== 'wallet' && body.paymentMethodId !== undefined
          ? money.instrumentFor(method, body.paymentMethodId, partnerId)
          : undefined
      const opts = {description: body.description ?? null, metadata: body.metadata ?? null}
      if (method === 'wallet') {
        const source = money.wallet(body.sourceWalletId!, partnerId)
        const destination = money.wallet(body.destinationWalletId!, partnerId)
        const paired = money.transfer(source, destination, amount, currency, now, {
          ...opts,
          paymentMethodId: body.paymentMethodId ?? null,
        })
        return toTransaction(paired.out)
      }
      const wallet = money.wallet(body.destinationWalletId ?? body.sourceWalletId!, partnerId)
      const payment = {method, amount, currency, instrument}
      return toTransaction(
        body.destinationWalletId !== undefined
          ? money.deposit(wallet, payment, now, opts)
          : money.withdraw(wallet, payment, now, opts),
      )
    })
  }

  get(partnerId: string, id: string): Transaction {
    return toTransaction(this.deps.money.transaction(id, partnerId))
  }

  /**
   * A page of the partner's transactions, newest first, filtered by wallet, user, status, type and
   * time. A user or wallet that is not the caller's is 404, not an empty list; a duration is counted
   * back from the sandbox clock.
   */
  list(partnerId: string, query: ListQuery): TransactionList {
    const {money, tenants, clock} = this.deps
    if (query.userId !== undefined) tenants.requireUser(partnerId, query.userId)
    if (query.walletId !== undefined) money.wallet(query.walletId, partnerId)
    const now = clock.nowMs(partnerId)
    const filters = {
      ...query,
      since: query.since === undefined ? undefined : instantOf(query.since, now),
      until: query.until === undefined ? undefined : instantOf(query.until, now),
    }
    const {rows, hasMore, nextCursor} = this.#list.page(partnerId, filters, query)
    return {transactions: rows.map((row) => toTransaction(fromRow(row))), hasMore, nextCursor}
  }

  /** POST /transactions/{id}/refund: what a product owns, its product gives back. */
  refund(partnerId: string, id: string, request: Refund): Transaction {
    const {database, money, owners} = this.deps
    return database.transaction(() => {
      const original = money.transaction(id, partnerId)
      refuseOwned(original, owners)
      return toTransaction(refund(money, original, request)[0]!)
    })
  }
}
