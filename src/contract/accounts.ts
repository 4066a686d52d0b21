import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {LinkTokenSurface} from './api/surface.js'
import {Id, Timestamp} from './fields.js'

/**
 * Bank-account links: a link token, exchanged for a connected account that becomes an ACH payment
 * method (docs/money.md).
 */

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

export const accountEndpoints = {
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
} satisfies Record<string, Endpoint>
