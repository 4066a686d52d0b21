import {z} from 'zod'
import type {Endpoint} from './endpoints.js'
import {CURSOR_MAX_LENGTH, Id} from './limits.js'
import {PositiveMinorAmount} from './money.js'
import {
  type Balance,
  BalanceSchema,
  CreateTransactionSchema,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  TransactionSchema,
  WALLET_STATUSES,
  WalletSchema,
} from './resources.js'
import {LinkTokenSurface, notShown, TransactionSurface} from './surface.js'

/**
 * Money movement: the operations the spec names without paths (list, get and refund
 * transactions, add payment methods, update wallets, get balances) and bank-account connection,
 * with the paths and shapes the sandbox serves (documented in docs/money.md).
 */

const Timestamp = z.string().describe('ISO 8601 timestamp')
const page = {
  limit: z.coerce.number().int().min(1).max(100).optional().describe('page size, 1 to 100 (default 20)'),
  cursor: z.string().max(CURSOR_MAX_LENGTH).optional().describe('the nextCursor of the previous page'),
}

export const ListTransactionsQuerySchema = z
  .strictObject({
    walletId: Id.optional(),
    userId: Id.optional(),
    status: z.enum(TRANSACTION_STATUSES).optional(),
    type: z.enum(TRANSACTION_TYPES).optional(),
    ...page,
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

/** Payment-method types: the spec's methods that draw on a saved instrument. */
export const PAYMENT_METHOD_TYPES = [
  'card',
  'ach',
  'wallet',
  'apple_pay',
  'google_pay',
  'crypto',
  'wire',
] as const

export const PaymentMethodSchema = z
  .object({
    id: z.string(),
    userId: z.string().nullable().describe('null for the shared test payment methods'),
    type: z.enum(PAYMENT_METHOD_TYPES),
    brand: z.string().optional(),
    last4: z.string().optional(),
    bankName: z.string().optional(),
    status: z.enum(['active', 'disabled']),
    createdAt: Timestamp,
  })
  .meta({id: 'PaymentMethod'})
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>

export const AddPaymentMethodSchema = z
  .strictObject({
    type: z.enum(PAYMENT_METHOD_TYPES),
    token: Id.describe('a test token such as tok_visa, tok_card_declined or tok_ach_success'),
  })
  .meta({id: 'AddPaymentMethodRequest'})

export const PaymentMethodListSchema = z
  .object({
    paymentMethods: z.array(PaymentMethodSchema),
    hasMore: z.boolean(),
    nextCursor: z.string().nullable(),
  })
  .meta({id: 'PaymentMethodList'})

export const RemovedPaymentMethodSchema = z
  .object({id: z.string(), deleted: z.literal(true)})
  .meta({id: 'RemovedPaymentMethod'})

export const LinkTokenSchema = z
  .strictObject({
    linkToken: z.string(),
    link_token: z.string().describe('the same token, snake_case'),
    expiresAt: Timestamp,
  })
  .meta({id: 'LinkToken'})
export type LinkToken = z.infer<typeof LinkTokenSchema>

/** Completes a bank-account link in the sandbox (where a real service would show the bank's own screens). */
export const ExchangeLinkTokenSchema = z
  .strictObject({
    link_token: Id,
    test_account: z
      .enum(['ach_success', 'ach_returned'])
      .default('ach_success')
      .describe('ach_returned settles as a returned (failed) ACH payment'),
  })
  .meta({id: 'ExchangeLinkTokenRequest'})

export const BankAccountSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    bankName: z.string(),
    last4: z.string(),
    status: z.literal('connected'),
    paymentMethodId: z.string().describe('use as paymentMethodId of an ACH transaction'),
    createdAt: Timestamp,
  })
  .meta({id: 'BankAccount'})
export type BankAccount = z.infer<typeof BankAccountSchema>

export const BankAccountListSchema = z
  .object({accounts: z.array(BankAccountSchema)})
  .meta({id: 'BankAccountList'})

export const UpdateWalletSchema = z
  .strictObject({
    label: z.string().max(50).optional(),
    status: z.enum(WALLET_STATUSES).optional(),
    limits: z
      .strictObject({
        daily: PositiveMinorAmount,
        monthly: PositiveMinorAmount,
        transaction: PositiveMinorAmount,
      })
      .partial()
      .optional(),
  })
  .meta({id: 'UpdateWalletRequest'})

export const SandboxClockSchema = z
  .object({
    now: Timestamp,
    offsetSeconds: z.number(),
    settled: z.number().int().describe('transactions settled by this call'),
  })
  .meta({id: 'SandboxClock'})
export const AdvanceClockSchema = z
  .strictObject({
    seconds: z
      .number()
      .int()
      .min(1)
      .max(365 * 86400),
  })
  .meta({id: 'AdvanceClockRequest'})

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
    summary: 'list transactions, newest first, filtered by wallet, user, status or type',
    tag: 'transactions',
    auth: 'bearer',
    scopes: {a: 'transfers:read', b: 'payments:read'},
    query: ListTransactionsQuerySchema,
    response: TransactionListSchema,
    surface: z.looseObject({transactions: z.array(TransactionSurface)}),
    status: 200,
    errors: [],
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
  connectAccount: {
    operationId: 'connectAccount',
    method: 'POST',
    path: '/users/{id}/accounts/connect',
    summary: 'start connecting a bank account: returns a link token',
    tag: 'accounts',
    auth: 'bearer',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    response: LinkTokenSchema,
    surface: LinkTokenSurface,
    status: 201,
    errors: ['NOT_FOUND', 'DUPLICATE_TRANSACTION'],
    enveloped: true,
  },
  exchangeLinkToken: {
    operationId: 'exchangeLinkToken',
    method: 'POST',
    path: '/users/{id}/accounts',
    summary:
      'finish connecting a bank account with its link token; the account becomes an ACH payment method',
    tag: 'accounts',
    auth: 'bearer',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    body: ExchangeLinkTokenSchema,
    response: BankAccountSchema,
    status: 201,
    errors: ['NOT_FOUND', 'LINK_TOKEN_INVALID', 'ACCOUNT_LIMIT', 'DUPLICATE_TRANSACTION'],
    enveloped: true,
  },
  listAccounts: {
    operationId: 'listAccounts',
    method: 'GET',
    path: '/users/{id}/accounts',
    summary: "list a user's connected bank accounts",
    tag: 'accounts',
    auth: 'bearer',
    scopes: {a: 'accounts:read', b: 'payments:read'},
    response: BankAccountListSchema,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  addPaymentMethod: {
    operationId: 'addPaymentMethod',
    method: 'POST',
    path: '/users/{id}/payment-methods',
    summary: 'save a payment method for a user from a test token',
    tag: 'payment-methods',
    auth: 'bearer',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    body: AddPaymentMethodSchema,
    response: PaymentMethodSchema,
    status: 201,
    errors: ['NOT_FOUND', 'INVALID_PAYMENT_METHOD', 'DUPLICATE_TRANSACTION'],
    enveloped: true,
  },
  listPaymentMethods: {
    operationId: 'listPaymentMethods',
    method: 'GET',
    path: '/users/{id}/payment-methods',
    summary: "list a user's payment methods",
    tag: 'payment-methods',
    auth: 'bearer',
    scopes: {a: 'accounts:read', b: 'payments:read'},
    query: z.strictObject(page),
    response: PaymentMethodListSchema,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  removePaymentMethod: {
    operationId: 'removePaymentMethod',
    method: 'DELETE',
    path: '/users/{id}/payment-methods/{methodId}',
    summary: "remove a user's saved payment method, and the bank-account link it came from",
    tag: 'payment-methods',
    auth: 'bearer',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    response: RemovedPaymentMethodSchema,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  updateWallet: {
    operationId: 'updateWallet',
    method: 'PATCH',
    path: '/wallets/{id}',
    summary: "change a wallet's label, status or limits",
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    body: UpdateWalletSchema,
    response: WalletSchema,
    status: 200,
    errors: ['NOT_FOUND', 'INVALID_STATE_TRANSITION'],
    enveloped: true,
  },
  getWalletBalance: {
    operationId: 'getWalletBalance',
    method: 'GET',
    path: '/wallets/{id}/balance',
    summary: "get a wallet's balance",
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:read', b: 'balance:read'},
    response: BalanceSchema,
    surface: notShown<Balance>(),
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  sandboxAdvanceClock: {
    operationId: 'sandboxAdvanceClock',
    method: 'POST',
    path: '/_sandbox/clock/advance',
    summary: 'sandbox only: move the sandbox clock forward, settling what falls due',
    tag: 'sandbox',
    auth: 'sandbox-admin',
    body: AdvanceClockSchema,
    response: SandboxClockSchema,
    status: 200,
    errors: [],
    enveloped: false,
    versioned: false,
  },
} satisfies Record<string, Endpoint>
