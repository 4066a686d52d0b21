import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {notShown} from './api/surface.js'
import {Id, MinorAmount, PositiveMinorAmount, Timestamp} from './fields.js'
import {BalanceSchema} from './wallets.js'

/** The wallet and payment-method product (`walletsvc`); bodies are the sandbox's (docs/money.md). */

export const EligibilityRequestSchema = z
  .strictObject({
    userId: Id,
    amount: PositiveMinorAmount,
    currency: Id.default('USD'),
  })
  .meta({id: 'EligibilityRequest'})

export const EligibilitySchema = z
  .object({
    eligible: z.boolean(),
    userId: z.string(),
    walletId: z.string().nullable(),
    amount: MinorAmount,
    currency: z.string(),
    available: MinorAmount.describe('available balance of the wallet in that currency (0 without one)'),
    reasons: z.array(
      z.enum([
        'NO_WALLET',
        'WALLET_NOT_ACTIVE',
        'INSUFFICIENT_FUNDS',
        'AMOUNT_TOO_LARGE',
        'AMOUNT_TOO_SMALL',
      ]),
    ),
  })
  .meta({id: 'Eligibility'})
export type Eligibility = z.infer<typeof EligibilitySchema>

export const WalletPaymentRequestSchema = z
  .strictObject({
    userId: Id,
    amount: PositiveMinorAmount,
    currency: Id.default('USD'),
    merchantName: z.string().max(200).optional(),
    description: z.string().max(500).optional(),
  })
  .meta({id: 'WalletPaymentRequest'})

export const WalletPaymentSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    walletId: z.string(),
    transactionId: z.string(),
    amount: MinorAmount,
    currency: z.string(),
    status: z.enum(['completed', 'failed']),
    merchantName: z.string().optional(),
    createdAt: Timestamp,
  })
  .meta({id: 'WalletPayment'})
export type WalletPayment = z.infer<typeof WalletPaymentSchema>

export const UserBalanceSchema = z
  .object({
    userId: z.string(),
    balances: z.array(BalanceSchema.extend({walletId: z.string()})),
  })
  .meta({id: 'UserBalance'})
export type UserBalance = z.infer<typeof UserBalanceSchema>

export const CreateCardRequestSchema = z
  .strictObject({
    walletId: Id.optional().describe("default: the user's USD wallet"),
    label: z.string().max(50).optional(),
  })
  .meta({id: 'CreateCardRequest'})

export const VirtualCardSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    walletId: z.string(),
    brand: z.literal('visa'),
    last4: z.string(),
    expMonth: z.number().int(),
    expYear: z.number().int(),
    status: z.enum(['active', 'frozen', 'cancelled']),
    label: z.string().optional(),
    number: z.string().optional().describe('full card number: only in the creation response'),
    cvc: z.string().optional().describe('only in the creation response'),
    createdAt: Timestamp,
  })
  .meta({id: 'VirtualCard'})
export type VirtualCard = z.infer<typeof VirtualCardSchema>

export const P2PRequestSchema = z
  .strictObject({
    fromUserId: Id,
    toUserId: Id,
    amount: PositiveMinorAmount,
    currency: Id.default('USD'),
    note: z.string().max(280).optional(),
  })
  .meta({id: 'P2PRequest'})

export const P2PTransferSchema = z
  .object({
    id: z.string(),
    fromUserId: z.string(),
    toUserId: z.string(),
    fromWalletId: z.string(),
    toWalletId: z.string(),
    amount: MinorAmount,
    currency: z.string(),
    status: z.literal('completed'),
    note: z.string().optional(),
    transactionIds: z.array(z.string()).describe('the transfer_out and transfer_in transactions'),
    createdAt: Timestamp,
  })
  .meta({id: 'P2PTransfer'})
export type P2PTransfer = z.infer<typeof P2PTransferSchema>

const walletProduct = {tag: 'walletsvc', auth: 'bearer', enveloped: true} as const

export const walletProductEndpoints = {
  checkEligibility: {
    ...walletProduct,
    operationId: 'checkEligibility',
    method: 'POST',
    path: '/walletsvc/payments/check-eligibility',
    summary: 'check whether a user can pay an amount from their wallet',
    scopes: {a: 'transfers:read', b: 'payments:read'},
    body: EligibilityRequestSchema,
    response: EligibilitySchema,
    surface: notShown<Eligibility>(),
    status: 200,
    errors: ['INVALID_USER_ID', 'INVALID_CURRENCY'],
  },
  processPayment: {
    ...walletProduct,
    operationId: 'processPayment',
    method: 'POST',
    path: '/walletsvc/payments',
    summary: "pay from a user's wallet (idempotent with Idempotency-Key)",
    scopes: {a: 'transfers:write', b: 'payments:create'},
    body: WalletPaymentRequestSchema,
    response: WalletPaymentSchema,
    surface: notShown<WalletPayment>(),
    status: 201,
    errors: [
      'INVALID_USER_ID',
      'INVALID_CURRENCY',
      'NOT_FOUND',
      'INSUFFICIENT_FUNDS',
      'AMOUNT_TOO_SMALL',
      'AMOUNT_TOO_LARGE',
      'WALLET_NOT_ACTIVE',
      'DUPLICATE_TRANSACTION',
    ],
  },
  getUserBalance: {
    ...walletProduct,
    operationId: 'getUserBalance',
    method: 'GET',
    path: '/walletsvc/users/{id}/balance',
    summary: "a user's balance in every currency they hold",
    scopes: {a: 'accounts:read', b: 'balance:read'},
    response: UserBalanceSchema,
    surface: notShown<UserBalance>(),
    status: 200,
    errors: ['NOT_FOUND'],
  },
  createCard: {
    ...walletProduct,
    operationId: 'createCard',
    method: 'POST',
    path: '/walletsvc/users/{id}/cards',
    summary: 'issue a virtual card drawing on one of the user’s wallets',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    body: CreateCardRequestSchema,
    bodyOptional: true,
    response: VirtualCardSchema,
    surface: notShown<VirtualCard>(),
    status: 201,
    errors: ['NOT_FOUND', 'WALLET_NOT_ACTIVE', 'DUPLICATE_TRANSACTION'],
  },
  sendP2P: {
    ...walletProduct,
    operationId: 'sendP2P',
    method: 'POST',
    path: '/walletsvc/p2p/send',
    summary: "send money from one user's wallet to another's, atomically",
    scopes: {a: 'transfers:write', b: 'payments:create'},
    body: P2PRequestSchema,
    response: P2PTransferSchema,
    surface: notShown<P2PTransfer>(),
    status: 201,
    errors: [
      'INVALID_USER_ID',
      'INVALID_CURRENCY',
      'NOT_FOUND',
      'INSUFFICIENT_FUNDS',
      'AMOUNT_TOO_SMALL',
      'AMOUNT_TOO_LARGE',
      'WALLET_NOT_ACTIVE',
      'DUPLICATE_TRANSACTION',
    ],
  },
} satisfies Record<string, Endpoint>
