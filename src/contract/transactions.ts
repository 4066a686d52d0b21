import {z} from 'zod'
import {type Endpoint, IDEMPOTENCY_KEY} from './api/endpoint.js'
import {TransactionSurface} from './api/surface.js'
import {
  Id,
  MetadataSchema,
  MinorAmount,
  PositiveMinorAmount,
  pageQuery,
  TimeBound,
  Timestamp,
} from './fields.js'

/**
 * Money movement: creating a transaction, and the operations the spec names without paths (list,
 * get and refund transactions), with the paths and shapes the sandbox serves (docs/money.md).
 */

export const TRANSACTION_TYPES = [
  'deposit',
  'withdrawal',
  'transfer_in',
  'transfer_out',
  'payment',
  'refund',
  'fee',
  'adjustment',
] as const
export const TRANSACTION_STATUSES = [
  'pending',
  'processing',
  'completed',
  'failed',
  'reversed',
  'refunded',
  'cancelled',
] as const
export const PAYMENT_METHODS = ['card', 'ach', 'wire', 'wallet', 'crypto', 'apple_pay', 'google_pay'] as const

export const TransactionSchema = TransactionSurface.extend({
  type: z.enum(TRANSACTION_TYPES),
  status: z.enum(TRANSACTION_STATUSES),
  amount: MinorAmount,
  fee: MinorAmount,
  netAmount: MinorAmount,
  metadata: z.record(z.string(), z.string()).optional(),
  createdAt: Timestamp,
  completedAt: Timestamp.nullable(),
  estimatedCompletion: Timestamp.optional(),
  // Sandbox additions (docs/money.md): the spec's record cannot tell a card payment from ACH, nor
  // link the two halves of a transfer or a refund to what it returns.
  method: z.enum(PAYMENT_METHODS).optional().describe('how the money moved'),
  pairedTransactionId: z
    .string()
    .optional()
    .describe('the other record of a wallet-to-wallet transfer (transfer_out / transfer_in) or refund'),
  originalTransactionId: z.string().optional().describe('on a refund: the transaction it returns'),
  refundedAmount: MinorAmount.optional().describe('how much of this transaction has been refunded'),
})
  .strict()
  .meta({id: 'Transaction'})
export type Transaction = z.infer<typeof TransactionSchema>

export const CreateTransactionSchema = z
  .strictObject({
    amount: PositiveMinorAmount,
    currency: Id,
    method: z.enum(PAYMENT_METHODS),
    paymentMethodId: Id.optional(),
    sourceWalletId: Id.optional(),
    destinationWalletId: Id.optional(),
    description: z.string().max(500).optional(),
    metadata: MetadataSchema.optional(),
    idempotencyKey: z
      .string()
      .min(1)
      .max(255)
      .regex(IDEMPOTENCY_KEY)
      .optional()
      .describe('1 to 255 printable ASCII characters, like the Idempotency-Key header'),
  })
  .meta({id: 'CreateTransactionRequest'})

export const ListTransactionsQuerySchema = z
  .strictObject({
    walletId: Id.optional(),
    userId: Id.optional(),
    status: z.enum(TRANSACTION_STATUSES).optional(),
    type: z.enum(TRANSACTION_TYPES).optional(),
    since: TimeBound.optional().describe(
      'sandbox extension: only transactions created at or after this time',
    ),
    until: TimeBound.optional().describe('sandbox extension: only transactions created before this time'),
    ...pageQuery,
  })
  .meta({id: 'ListTransactionsQuery'})

export const TransactionListSchema = z
  .object({transactions: z.array(TransactionSchema), hasMore: z.boolean(), nextCursor: z.string().nullable()})
  .meta({id: 'TransactionList'})
export type TransactionList = z.infer<typeof TransactionListSchema>

export const RefundRequestSchema = z
  .strictObject({
    amount: PositiveMinorAmount.optional().describe('smallest unit; default: the whole refundable amount'),
    reason: z.string().max(500).optional(),
  })
  .meta({id: 'RefundRequest'})

/** The fields of POST /transactions that name its parties: the wallets and the payment method. */
export type PartyField = 'sourceWalletId' | 'destinationWalletId' | 'paymentMethodId'

/** What a new transaction names besides its amount. */
export interface Parties {
  method: string
  sourceWalletId?: string | undefined
  destinationWalletId?: string | undefined
  paymentMethodId?: string | undefined
}

/**
 * A broken rule of a transaction's parties: the field it is about, whether the method requires it
 * (`missing`) or it may not be given as it is (`conflict`), and why, in the words of `name`.
 */
export interface PartiesProblem {
  field: PartyField
  kind: 'missing' | 'conflict'
  reason: string
}

/** Methods that draw on a saved payment method, which they must name. */
const NEEDS_PAYMENT_METHOD = new Set(['card', 'ach'])

/**
 * The fields `parties.method` requires that it lacks, in the order to ask for them: both wallets
 * of a wallet-to-wallet transfer; the payment method of card and ACH; and one wallet, the
 * destination unless told otherwise, for every method but wallet.
 */
export function missingParties(parties: Parties): PartyField[] {
  const {method, sourceWalletId: source, destinationWalletId: destination} = parties
  if (method === 'wallet') {
    return [
      ...(source === undefined ? (['sourceWalletId'] as const) : []),
      ...(destination === undefined ? (['destinationWalletId'] as const) : []),
    ]
  }
  const missing: PartyField[] = []
  if (NEEDS_PAYMENT_METHOD.has(method) && parties.paymentMethodId === undefined)
    missing.push('paymentMethodId')
  if (source === undefined && destination === undefined) missing.push('destinationWalletId')
  return missing
}

/**
 * The rules of a transaction's parties, the first one `parties` breaks: a wallet-to-wallet
 * transfer names two different wallets and draws on its source; any other method moves money into
 * one wallet or out of one, and card and ACH name the payment method. The sandbox answers with
 * them, and payctl checks them before sending; `name` says how each field is called where the
 * problem is told (the body's field names by default).
 */
export function partiesProblem(
  parties: Parties,
  name: (field: PartyField) => string = (field) => field,
): PartiesProblem | undefined {
  const {method} = parties
  const [source, destination, paymentMethod] = [
    name('sourceWalletId'),
    name('destinationWalletId'),
    name('paymentMethodId'),
  ]
  const missing = (field: PartyField, reason: string): PartiesProblem => ({field, kind: 'missing', reason})
  const conflict = (field: PartyField, reason: string): PartiesProblem => ({field, kind: 'conflict', reason})
  if (method === 'wallet') {
    const transfer = 'Required for a wallet-to-wallet transfer (method wallet)'
    if (parties.sourceWalletId === undefined) return missing('sourceWalletId', transfer)
    if (parties.destinationWalletId === undefined) return missing('destinationWalletId', transfer)
    if (parties.sourceWalletId === parties.destinationWalletId) {
      return conflict('destinationWalletId', `Must differ from ${source}`)
    }
    if (parties.paymentMethodId !== undefined && parties.paymentMethodId !== parties.sourceWalletId) {
      return conflict(
        'paymentMethodId',
        `A wallet-to-wallet transfer draws on its source wallet: ${paymentMethod}, if given, must be ${source}`,
      )
    }
    return undefined
  }
  if (parties.sourceWalletId !== undefined && parties.destinationWalletId !== undefined) {
    return conflict(
      'sourceWalletId',
      `A ${method} transaction moves money into one wallet (${destination}) or out of one (${source}), not both`,
    )
  }
  if (parties.sourceWalletId === undefined && parties.destinationWalletId === undefined) {
    return missing(
      'destinationWalletId',
      `Required: ${destination} to deposit into a wallet, or ${source} to withdraw from one`,
    )
  }
  if (NEEDS_PAYMENT_METHOD.has(method) && parties.paymentMethodId === undefined) {
    return missing('paymentMethodId', `Required for method ${method}`)
  }
  return undefined
}

export const transactionEndpoints = {
  createTransaction: {
    operationId: 'createTransaction',
    method: 'POST',
    path: '/transactions',
    summary: 'move money: deposit to, withdraw from, or transfer between wallets',
    tag: 'transactions',
    auth: 'bearer',
    scopes: {a: 'transfers:write', b: 'payments:create'},
    body: CreateTransactionSchema,
    response: TransactionSchema,
    surface: TransactionSurface,
    status: 201,
    errors: [
      'INVALID_CURRENCY',
      'INVALID_PAYMENT_METHOD',
      'PAYMENT_METHOD_NOT_FOUND',
      'AMOUNT_TOO_SMALL',
      'AMOUNT_TOO_LARGE',
      'INSUFFICIENT_FUNDS',
      'CARD_DECLINED',
      'DUPLICATE_TRANSACTION',
      'NOT_FOUND',
      'WALLET_NOT_ACTIVE',
      'CURRENCY_MISMATCH',
    ],
    enveloped: true,
  },
  getTransaction: {
    operationId: 'getTransaction',
    method: 'GET',
    path: '/transactions/{id}',
    summary: 'get a transaction',
    tag: 'transactions',
    auth: 'bearer',
    scopes: {a: 'transfers:read', b: 'payments:read'},
    response: TransactionSchema,
    surface: TransactionSurface,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  listTransactions: {
    operationId: 'listTransactions',
    method: 'GET',
    path: '/transactions',
    summary: 'list transactions, newest first, filtered by wallet, user, status, type or time',
    tag: 'transactions',
    auth: 'bearer',
    scopes: {a: 'transfers:read', b: 'payments:read'},
    query: ListTransactionsQuerySchema,
    response: TransactionListSchema,
    surface: z.looseObject({transactions: z.array(TransactionSurface)}),
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  refundTransaction: {
    operationId: 'refundTransaction',
    method: 'POST',
    path: '/transactions/{id}/refund',
    summary: 'refund a completed payment or deposit, wholly or in part',
    tag: 'transactions',
    auth: 'bearer',
    scopes: {a: 'transfers:write', b: 'payments:refund'},
    body: RefundRequestSchema,
    bodyOptional: true,
    response: TransactionSchema,
    surface: TransactionSurface,
    status: 201,
    errors: [
      'NOT_FOUND',
      'TRANSACTION_NOT_REFUNDABLE',
      'AMOUNT_TOO_LARGE',
      'INSUFFICIENT_FUNDS',
      'WALLET_NOT_ACTIVE',
      'DUPLICATE_TRANSACTION',
    ],
    enveloped: true,
  },
} satisfies Record<string, Endpoint>
