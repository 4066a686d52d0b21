import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {notShown} from './api/surface.js'
import {Id, MinorAmount, PositiveMinorAmount, pageQuery, Timestamp} from './fields.js'

/**
 * Buy now, pay later (`bnplsvc`). The spec shows the five paths and nothing of their bodies; these
 * are the sandbox's, camelCase with amounts in the smallest currency unit like the wallet product
 * (docs/bnpl.md).
 */

/** Four instalments, two weeks apart, the first due at purchase. */
export const BNPL_INSTALLMENTS = 4
export const BNPL_INTERVAL_DAYS = 14

export const BNPL_STATUSES = ['pending', 'active', 'completed', 'cancelled', 'failed'] as const
export type BnplStatus = (typeof BNPL_STATUSES)[number]
/** The states a payment can be cancelled from. */
export const BNPL_CANCELLABLE: readonly BnplStatus[] = ['pending', 'active']

export const BNPL_INSTALLMENT_STATUSES = ['scheduled', 'paid', 'failed', 'cancelled', 'refunded'] as const

export const BNPL_DECLINE_REASONS = [
  'sandbox_decline', // the user's email carries +decline
  'amount_too_small',
  'over_limit',
] as const

export const PrequalifyRequestSchema = z
  .strictObject({
    userId: Id,
    amount: PositiveMinorAmount.optional().describe('the purchase to check; without it, only the limit'),
    currency: Id.default('USD'),
  })
  .meta({id: 'BnplPrequalifyRequest'})

export const PrequalificationSchema = z
  .object({
    userId: z.string(),
    decision: z.enum(['approved', 'declined']),
    currency: z.string(),
    amount: MinorAmount.nullable().describe('the amount checked, if any'),
    limit: MinorAmount.describe("the user's BNPL limit"),
    available: MinorAmount.describe('limit minus what the user still owes on pending and active payments'),
    minimum: MinorAmount.describe('smallest purchase BNPL takes'),
    reasons: z.array(z.enum(BNPL_DECLINE_REASONS)).describe('empty when approved'),
  })
  .meta({id: 'BnplPrequalification'})
export type Prequalification = z.infer<typeof PrequalificationSchema>

export const CreateBnplPaymentSchema = z
  .strictObject({
    userId: Id,
    amount: PositiveMinorAmount.describe('smallest currency unit'),
    currency: Id.default('USD'),
    merchantName: z.string().min(1).max(200),
    description: z.string().max(500).optional(),
  })
  .meta({id: 'CreateBnplPaymentRequest'})

export const BnplInstallmentSchema = z
  .object({
    number: z.number().int().describe('1 to 4'),
    amount: MinorAmount,
    dueAt: Timestamp.describe('when it falls due; collected settleAfterSeconds later'),
    status: z.enum(BNPL_INSTALLMENT_STATUSES),
    paidAt: Timestamp.nullable(),
    transactionId: z.string().nullable().describe('the payment transaction that collected it'),
    refundTransactionId: z.string().nullable().describe('the refund, if the payment was cancelled'),
    failureReason: z.string().nullable(),
  })
  .meta({id: 'BnplInstallment'})
export type BnplInstallment = z.infer<typeof BnplInstallmentSchema>

export const BnplPaymentSchema = z
  .object({
    id: z.string().describe('bnpl_…'),
    userId: z.string(),
    walletId: z.string().describe('the wallet instalments are collected from'),
    merchantName: z.string(),
    description: z.string().nullable(),
    amount: MinorAmount,
    currency: z.string(),
    status: z.enum(BNPL_STATUSES),
    installments: z.number().int(),
    installmentAmount: MinorAmount.describe('each instalment; the first also takes the remainder'),
    paidInstallments: z.number().int(),
    paidAmount: MinorAmount,
    outstandingAmount: MinorAmount.describe('what is still to be collected (0 once cancelled or failed)'),
    schedule: z.array(BnplInstallmentSchema),
    failureReason: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: Timestamp.nullable(),
    cancelledAt: Timestamp.nullable(),
    failedAt: Timestamp.nullable(),
  })
  .meta({id: 'BnplPayment'})
export type BnplPayment = z.infer<typeof BnplPaymentSchema>

export const ListBnplPaymentsQuerySchema = z
  .strictObject({
    userId: Id.optional(),
    status: z.enum(BNPL_STATUSES).optional(),
    ...pageQuery,
  })
  .meta({id: 'ListBnplPaymentsQuery'})
export type ListBnplPaymentsQuery = z.infer<typeof ListBnplPaymentsQuerySchema>

export const BnplPaymentListSchema = z
  .object({payments: z.array(BnplPaymentSchema), hasMore: z.boolean(), nextCursor: z.string().nullable()})
  .meta({id: 'BnplPaymentList'})
export type BnplPaymentList = z.infer<typeof BnplPaymentListSchema>

export const CancelBnplPaymentSchema = z
  .strictObject({reason: z.string().max(500).optional()})
  .optional()
  .meta({id: 'CancelBnplPaymentRequest'})

const bnpl = {tag: 'bnplsvc', auth: 'bearer', enveloped: true} as const

export const bnplEndpoints = {
  prequalifyBnpl: {
    ...bnpl,
    operationId: 'prequalifyBnpl',
    method: 'POST',
    path: '/bnplsvc/prequalify',
    summary: 'pre-qualify a user for buy now, pay later: a decision and a limit',
    scopes: {a: 'users:read', b: 'payments:read'},
    body: PrequalifyRequestSchema,
    response: PrequalificationSchema,
    surface: notShown<Prequalification>(),
    status: 200,
    errors: ['INVALID_USER_ID', 'INVALID_CURRENCY', 'DUPLICATE_TRANSACTION'],
  },
  createBnplPayment: {
    ...bnpl,
    operationId: 'createBnplPayment',
    method: 'POST',
    path: '/bnplsvc/payments',
    summary: 'create a BNPL payment: four instalments two weeks apart, the first at purchase',
    scopes: {a: 'transfers:write', b: 'payments:create'},
    body: CreateBnplPaymentSchema,
    response: BnplPaymentSchema,
    surface: notShown<BnplPayment>(),
    status: 201,
    errors: [
      'INVALID_USER_ID',
      'INVALID_CURRENCY',
      'NOT_FOUND',
      'WALLET_NOT_ACTIVE',
      'BNPL_DECLINED',
      'DUPLICATE_TRANSACTION',
    ],
  },
  getBnplPayment: {
    ...bnpl,
    operationId: 'getBnplPayment',
    method: 'GET',
    path: '/bnplsvc/payments/{id}',
    summary: 'get a BNPL payment and its schedule',
    scopes: {a: 'transfers:read', b: 'payments:read'},
    response: BnplPaymentSchema,
    surface: notShown<BnplPayment>(),
    status: 200,
    errors: ['NOT_FOUND'],
  },
  listBnplPayments: {
    ...bnpl,
    operationId: 'listBnplPayments',
    method: 'GET',
    path: '/bnplsvc/payments',
    summary: 'list BNPL payments, newest first, filtered by user and status',
    scopes: {a: 'transfers:read', b: 'payments:read'},
    query: ListBnplPaymentsQuerySchema,
    response: BnplPaymentListSchema,
    surface: notShown<BnplPaymentList>(),
    status: 200,
    errors: [],
  },
  cancelBnplPayment: {
    ...bnpl,
    operationId: 'cancelBnplPayment',
    method: 'POST',
    path: '/bnplsvc/payments/{id}/cancel',
    summary: 'cancel a pending or active BNPL payment, refunding what was collected',
    scopes: {a: 'transfers:write', b: 'payments:refund'},
    body: CancelBnplPaymentSchema,
    response: BnplPaymentSchema,
    surface: notShown<BnplPayment>(),
    status: 200,
    errors: ['NOT_FOUND', 'INVALID_STATE_TRANSITION', 'WALLET_NOT_ACTIVE', 'DUPLICATE_TRANSACTION'],
  },
} satisfies Record<string, Endpoint>
