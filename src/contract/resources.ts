import {z} from 'zod'
import {CurrencySchema} from './currencies.js'
import {CURSOR_MAX_LENGTH, Id, MetadataSchema, URL_MAX_LENGTH} from './limits.js'
import {MinorAmount, NonNegativeMinorAmount, PositiveMinorAmount} from './money.js'
import {
  AccessTokenSurface,
  BalanceSurface,
  TransactionSurface,
  UserSurface,
  WalletLimitsSurface,
  WalletSurface,
} from './surface.js'

const Timestamp = z.string().describe('ISO 8601 timestamp')

export const WALLET_STATUSES = ['pending_verification', 'active', 'suspended', 'frozen', 'closed'] as const
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
      .regex(/^[\x20-\x7e]{1,255}$/)
      .optional()
      .describe('1 to 255 printable ASCII characters, like the Idempotency-Key header'),
  })
  .meta({id: 'CreateTransactionRequest'})

export const SCOPES_A = [
  'users:read',
  'users:write',
  'accounts:read',
  'accounts:write',
  'transfers:read',
  'transfers:write',
  'roundups:read',
  'roundups:write',
  'webhooks:write',
] as const
export const SCOPES_B = [
  'payments:read',
  'payments:create',
  'payments:refund',
  'balance:read',
  'payouts:create',
] as const
export type ScopeA = (typeof SCOPES_A)[number]
/**
 * Sandbox extension: the scope of an access token that may use the sandbox's control routes
 * (reset, clock, trigger). A token exchanged without `scopes` has it; a narrowed one only if asked.
 */
export const SANDBOX_ADMIN_SCOPE = 'sandbox:admin'
/** What a Variant A token exchange can grant: the spec's scopes and the sandbox's own. */
export const TOKEN_SCOPES = [...SCOPES_A, SANDBOX_ADMIN_SCOPE] as const
export type ScopeB = (typeof SCOPES_B)[number]

/** Variant A token exchange body. `api_secret` is required by the sandbox (see docs/auth.md). */
export const TokenRequestSchema = z
  .strictObject({
    api_key: Id,
    api_secret: Id.optional(),
    partner_id: Id,
    scopes: z.array(z.enum(TOKEN_SCOPES)).optional().describe('sandbox extension: narrow the granted scopes'),
  })
  .meta({id: 'TokenRequest'})
export type TokenRequest = z.infer<typeof TokenRequestSchema>

export const AccessTokenSchema = AccessTokenSurface.extend({
  access_token: z.string().describe('JWT'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('seconds; 604800 (7 days) by default'),
  partner_id: z.string(),
  scopes: z.array(z.string()),
})
  .strict()
  .meta({id: 'AccessToken'})
export type AccessToken = z.infer<typeof AccessTokenSchema>

export const RevokeResultSchema = z.object({revoked: z.literal(true)}).meta({id: 'RevokeResult'})

/** Variant B: mint a short-lived scoped JWT from a secret API key (sandbox path: POST /auth/jwt). */
export const MintJwtRequestSchema = z
  .strictObject({
    scopes: z.array(z.enum(SCOPES_B)).min(1),
    expires_in: z
      .number()
      .int()
      .min(60)
      .max(86400)
      .default(3600)
      .describe('seconds; 1 to 24 hours recommended, 60 s to 24 h accepted'),
  })
  .meta({id: 'MintJwtRequest'})

export const MintedJwtSchema = z
  .object({
    token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    expires_at: Timestamp,
    scopes: z.array(z.string()),
  })
  .meta({id: 'MintedJwt'})
export type MintedJwt = z.infer<typeof MintedJwtSchema>

const userFields = {
  email: z.email().max(254),
  first_name: z.string().min(1).max(100),
  last_name: z.string().min(1).max(100),
  partner_id: Id.optional().describe("defaults to the caller's partner"),
  external_id: z.string().min(1).max(255).optional(),
}
/** Create-user input, snake_case (HTTP form). */
export const CreateUserSchema = z.strictObject(userFields).meta({id: 'CreateUserRequest'})
/** Create-user input, camelCase (SDK form); the sandbox accepts either. */
export const CreateUserCamelSchema = z
  .strictObject({
    email: userFields.email,
    firstName: userFields.first_name,
    lastName: userFields.last_name,
    partnerId: userFields.partner_id,
    externalId: userFields.external_id,
  })
  .meta({id: 'CreateUserRequestCamel'})
export type CreateUserInput = z.infer<typeof CreateUserSchema>
/** The camelCase form read as the snake_case one: the sandbox's operation gets either form alike. */
export const CreateUserFromCamelSchema = CreateUserCamelSchema.transform(
  (c): CreateUserInput => ({
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    partner_id: c.partnerId,
    external_id: c.externalId,
  }),
)

export const UserSchema = UserSurface.extend({
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  partner_id: z.string(),
  external_id: z.string().nullable(),
  created_at: Timestamp,
})
  .strict()
  .meta({id: 'User'})
export type User = z.infer<typeof UserSchema>

export const RoundupProcessSchema = z
  .strictObject({
    user_id: Id,
    amount: z.number().positive().describe('major units'),
    merchant_name: z.string().min(1).max(200),
    transaction_id: Id,
  })
  .meta({id: 'RoundupProcessRequest'})

export const WebhookRegistrationInputSchema = z
  .strictObject({url: z.url().max(URL_MAX_LENGTH), events: z.array(z.string().max(100)).min(1).max(100)})
  .meta({id: 'WebhookRegistrationRequest'})

export const EVENT_NAMES = [
  'roundupsvc.roundup.processed',
  'roundupsvc.transfer.completed',
  'bnplsvc.payment.created',
  'bnplsvc.payment.completed',
  'bnplsvc.payment.failed',
  'walletsvc.payment.completed',
  'walletsvc.p2p.sent',
  'walletsvc.card.created',
  'transfer.completed',
  'transfer.failed',
  'roundup.processed',
  'wallet.created',
  'transaction.completed',
  'transaction.failed',
] as const
export type EventName = (typeof EVENT_NAMES)[number]

/** Webhook envelope: `event`, `data`, `timestamp`, plus the event `id`. */
export const EventEnvelopeSchema = z
  .object({
    id: z.string(),
    event: z.enum(EVENT_NAMES),
    data: z.record(z.string(), z.unknown()),
    timestamp: Timestamp,
  })
  .meta({id: 'EventEnvelope'})
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>

export const SandboxHealthSchema = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    pid: z.number().int().optional().describe('process id of the sandbox'),
    responseShape: z.enum(['envelope', 'direct']),
    rateLimit: z.enum(['spec', 'off']),
    tokenTtl: z.number().int().describe('seconds'),
    startedAt: Timestamp,
    settleAfterSeconds: z
      .number()
      .int()
      .optional()
      .describe('how long "1-3 days" takes locally: ACH, wire and crypto settle after this'),
    clock: z
      .object({now: Timestamp, offsetSeconds: z.number()})
      .optional()
      .describe('the sandbox clock, moved by POST /_sandbox/clock/advance'),
  })
  .meta({id: 'SandboxHealth'})
export type SandboxHealth = z.infer<typeof SandboxHealthSchema>

export const SandboxResetSchema = z.object({reset: z.literal(true)}).meta({id: 'SandboxReset'})
