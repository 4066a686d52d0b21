import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {
  BalanceSurface,
  notShown,
  WalletLimitsSurface,
  WalletListSurface,
  WalletSurface,
} from './api/surface.js'
import {
  CURSOR_MAX_LENGTH,
  CurrencySchema,
  Id,
  MinorAmount,
  NonNegativeMinorAmount,
  PositiveMinorAmount,
  pageQuery,
  Timestamp,
} from './fields.js'

/**
 * Wallets: one per user and currency, with its balance and limits. The spec names updating a wallet
 * and reading its balance without paths; those paths are the sandbox's (docs/money.md).
 */

export const WALLET_STATUSES = ['pending_verification', 'active', 'suspended', 'frozen', 'closed'] as const

export const BalanceSchema = BalanceSurface.extend({
  available: MinorAmount,
  pending: MinorAmount,
  reserved: MinorAmount,
  total: MinorAmount.describe('available + pending + reserved'),
  currency: CurrencySchema,
})
  .strict()
  .meta({id: 'Balance'})
export type Balance = z.infer<typeof BalanceSchema>

export const WalletLimitsSchema = WalletLimitsSurface.extend({
  daily: MinorAmount.describe('max daily volume'),
  monthly: MinorAmount.describe('max monthly volume'),
  transaction: MinorAmount.describe('max single amount'),
})
  .strict()
  .meta({id: 'WalletLimits'})

export const WalletSchema = WalletSurface.extend({
  currency: CurrencySchema,
  balance: BalanceSchema,
  status: z.enum(WALLET_STATUSES),
  limits: WalletLimitsSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
  .strict()
  .meta({id: 'Wallet'})
export type Wallet = z.infer<typeof WalletSchema>

export const CreateWalletSchema = z
  .strictObject({
    userId: Id,
    currency: Id.describe('one of the supported currencies'),
    label: z.string().max(50).optional(),
    initialBalance: NonNegativeMinorAmount.optional().describe('sandbox only; smallest currency unit'),
  })
  .meta({id: 'CreateWalletRequest'})

export const ListWalletsQuerySchema = z.strictObject({
  userId: Id.optional(),
  currency: Id.optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().max(CURSOR_MAX_LENGTH).optional(),
})

export const WalletListSchema = z
  .object({
    wallets: z.array(WalletSchema),
    hasMore: z.boolean(),
    nextCursor: z.string().nullable(),
  })
  .meta({id: 'WalletList'})
export type WalletList = z.infer<typeof WalletListSchema>

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

export const LEDGER_BUCKETS = ['available', 'pending', 'reserved'] as const

export const LedgerEntrySchema = z
  .object({
    transactionId: z.string().describe('the transaction that posted the entry'),
    bucket: z.enum(LEDGER_BUCKETS).describe('the part of the balance the entry moved'),
    amount: MinorAmount.describe('signed: positive credits the wallet, negative debits it'),
    currency: CurrencySchema,
    balanceAfter: BalanceSchema.describe("the wallet's balance right after the entry"),
    createdAt: Timestamp,
  })
  .meta({id: 'LedgerEntry'})
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>

export const ListLedgerEntriesQuerySchema = z
  .strictObject({...pageQuery})
  .meta({id: 'ListLedgerEntriesQuery'})

export const LedgerEntryListSchema = z
  .object({entries: z.array(LedgerEntrySchema), hasMore: z.boolean(), nextCursor: z.string().nullable()})
  .meta({id: 'LedgerEntryList'})
export type LedgerEntryList = z.infer<typeof LedgerEntryListSchema>

export const walletEndpoints = {
  createWallet: {
    operationId: 'createWallet',
    method: 'POST',
    path: '/wallets',
    summary: 'create a wallet for a user in one currency',
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:write', b: 'payments:create'},
    body: CreateWalletSchema,
    response: WalletSchema,
    surface: WalletSurface,
    status: 201,
    errors: [
      'INVALID_CURRENCY',
      'INVALID_USER_ID',
      'WALLET_EXISTS',
      'INVALID_API_KEY',
      'INSUFFICIENT_PERMISSIONS',
      'DUPLICATE_TRANSACTION',
    ],
    enveloped: true,
  },
  getWallet: {
    operationId: 'getWallet',
    method: 'GET',
    path: '/wallets/{id}',
    summary: 'get a wallet',
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:read', b: 'balance:read'},
    response: WalletSchema,
    surface: WalletSurface,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  listWallets: {
    operationId: 'listWallets',
    method: 'GET',
    path: '/wallets',
    summary: 'list wallets, filtered by user and currency',
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'accounts:read', b: 'balance:read'},
    query: ListWalletsQuerySchema,
    response: WalletListSchema,
    surface: WalletListSurface,
    status: 200,
    errors: ['INVALID_CURRENCY'],
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
  listLedgerEntries: {
    operationId: 'listLedgerEntries',
    method: 'GET',
    path: '/wallets/{id}/ledger-entries',
    summary: "sandbox extension: a wallet's ledger entries, newest first, each with the balance it left",
    tag: 'wallets',
    auth: 'bearer',
    scopes: {a: 'transfers:read', b: 'balance:read'},
    query: ListLedgerEntriesQuerySchema,
    response: LedgerEntryListSchema,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
    extension: "the interface shows no ledger: the sandbox's double-entry ledger explains every balance",
  },
} satisfies Record<string, Endpoint>
