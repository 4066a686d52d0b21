import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {Id, pageQuery, Timestamp} from './fields.js'

/** A user's saved payment methods, made from test tokens or by linking a bank account (docs/money.md). */

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

export const paymentMethodEndpoints = {
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
    query: z.strictObject(pageQuery),
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
} satisfies Record<string, Endpoint>
