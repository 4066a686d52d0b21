import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {notShown, RoundupResultSurface, RoundupSettingsSurface} from './api/surface.js'
import {Id, Timestamp} from './fields.js'
import {type Currency, MINOR_UNITS, minorPerMajor, ROUNDUP_CURRENCIES} from './money/currencies.js'

/**
 * Round-ups: the spec's two families, the common endpoints (`PUT /users/{id}/roundup-settings`,
 * `POST /transactions/process`) and the product's (`/roundupsvc/users/{id}/roundups/...`), over one
 * settings record and one set of pending round-ups per user. Field names are snake_case and amounts
 * are in major units, as the spec shows them; the rest of the bodies is the sandbox's
 * (docs/roundups.md).
 */

const Major = z.number().describe('major currency units (4.35 is 4 dollars 35 cents)')

export type RoundupCurrency = (typeof ROUNDUP_CURRENCIES)[number]
export const ROUNDUP_MULTIPLIERS = [1, 2, 3, 5] as const
export type RoundupMultiplier = (typeof ROUNDUP_MULTIPLIERS)[number]

/** The spec's cap example: five dollars. */
export const DEFAULT_MAX_ROUNDUP = 5

/** A multiplier, refused with a message naming the allowed values. */
const Multiplier = z.literal(ROUNDUP_MULTIPLIERS, {
  error: () => `Must be one of ${ROUNDUP_MULTIPLIERS.join(', ')}`,
})
const RoundupCurrencySchema = z.enum(ROUNDUP_CURRENCIES, {
  error: () => `Must be a fiat currency: ${ROUNDUP_CURRENCIES.join(', ')}`,
})

/**
 * The step a purchase is rounded up to, in the smallest unit: one whole major unit (100 cents), or
 * 100 yen for JPY, which has no minor unit, so that a yen purchase has spare change at all.
 */
export function roundupStep(currency: Currency): bigint {
  return MINOR_UNITS[currency] === 0 ? 100n : minorPerMajor(currency)
}

export const RoundupSettingsRecordSchema = RoundupSettingsSurface.extend({
  user_id: z.string(),
  enabled: z.boolean(),
  multiplier: z.literal(ROUNDUP_MULTIPLIERS),
  max_roundup_amount: Major.describe('cap per transaction, major units of `currency`'),
  destination_account_id: z
    .string()
    .nullable()
    .describe('where transfers go: a wallet (wal_…) or a connected bank account (ba_…); null for none'),
  currency: z.enum(ROUNDUP_CURRENCIES).describe('sandbox addition: the currency round-ups are kept in'),
  created_at: Timestamp.nullable().describe('null while the user has the default settings'),
  updated_at: Timestamp.nullable(),
})
  .strict()
  .meta({id: 'RoundupSettingsRecord'})
export type RoundupSettingsRecord = z.infer<typeof RoundupSettingsRecordSchema>

const settingsFields = {
  enabled: z.boolean(),
  multiplier: Multiplier,
  max_roundup_amount: Major.positive().describe('cap per transaction, major units'),
  destination_account_id: Id.nullable().describe(
    'a wallet (wal_…) in the round-up currency, or a connected bank account (ba_…, USD only)',
  ),
  currency: RoundupCurrencySchema.describe('sandbox addition; default USD'),
}

/** PUT /users/{id}/roundup-settings: the spec's body, replacing the settings. */
export const PutRoundupSettingsSchema = z
  .strictObject({
    enabled: settingsFields.enabled,
    multiplier: settingsFields.multiplier,
    max_roundup_amount: settingsFields.max_roundup_amount,
    destination_account_id: settingsFields.destination_account_id
      .optional()
      .describe('omitted: no destination (a PUT replaces the settings)'),
    currency: settingsFields.currency.optional().describe('sandbox addition; omitted: unchanged'),
  })
  .meta({id: 'PutRoundupSettingsRequest'})

/** PUT /roundupsvc/users/{id}/roundups/settings: any of the fields, merged onto the current settings. */
export const UpdateRoundupSettingsSchema = z
  .strictObject({
    enabled: settingsFields.enabled.optional(),
    multiplier: settingsFields.multiplier.optional(),
    max_roundup_amount: settingsFields.max_roundup_amount.optional(),
    destination_account_id: settingsFields.destination_account_id
      .optional()
      .describe('null removes the destination'),
    currency: settingsFields.currency.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {message: 'Give at least one setting to change'})
  .meta({id: 'UpdateRoundupSettingsRequest', minProperties: 1})
export type UpdateRoundupSettingsInput = z.infer<typeof UpdateRoundupSettingsSchema>

/** POST /roundupsvc/users/{id}/roundups/enable: turns round-ups on, optionally changing settings too. */
export const EnableRoundupsSchema = z
  .strictObject({
    multiplier: settingsFields.multiplier.optional(),
    max_roundup_amount: settingsFields.max_roundup_amount.optional(),
    destination_account_id: settingsFields.destination_account_id.optional(),
    currency: settingsFields.currency.optional(),
  })
  .meta({id: 'EnableRoundupsRequest'})

export const RoundupProcessSchema = z
  .strictObject({
    user_id: Id,
    amount: z.number().positive().describe('major units'),
    merchant_name: z.string().min(1).max(200),
    transaction_id: Id,
  })
  .meta({id: 'RoundupProcessRequest'})

/** POST /transactions/process: the spec's body, with messages that name the rule broken. */
export const ProcessRoundupSchema = RoundupProcessSchema

export const ROUNDUP_STATUSES = ['pending', 'transferred', 'skipped'] as const
/** Why a processed purchase yielded no round-up. */
export const ROUNDUP_SKIP_REASONS = ['roundups_disabled', 'no_spare_change'] as const

/** One processed purchase and the round-up it yielded. */
export const RoundupSchema = RoundupResultSurface.extend({
  id: z.string().describe('rnd_…'),
  user_id: z.string(),
  transaction_id: z.string().describe("the caller's purchase id; one round-up per id"),
  merchant_name: z.string(),
  amount: Major.describe('the purchase, major units'),
  roundup_amount: Major.describe('spare change × multiplier, capped; 0 when skipped'),
  multiplier: z.literal(ROUNDUP_MULTIPLIERS),
  capped: z.boolean().describe('whether max_roundup_amount cut the round-up down'),
  currency: z.enum(ROUNDUP_CURRENCIES),
  status: z.enum(ROUNDUP_STATUSES),
  reason: z.enum(ROUNDUP_SKIP_REASONS).nullable().describe('why the round-up is 0 (status skipped)'),
  transfer_id: z.string().nullable().describe('the transfer that moved it, once transferred'),
  processed_at: Timestamp,
  duplicate: z
    .boolean()
    .describe('true when this transaction_id had been processed before: the first result, unchanged'),
})
  .strict()
  .meta({id: 'Roundup'})
export type Roundup = z.infer<typeof RoundupSchema>

export const PendingRoundupsSchema = z
  .object({
    user_id: z.string(),
    currency: z.enum(ROUNDUP_CURRENCIES),
    total: Major.describe('sum of the pending round-ups: what a transfer would move'),
    count: z.number().int(),
    roundups: z
      .array(RoundupSchema)
      .describe('the oldest 100 pending round-ups, oldest first; count and total cover all'),
  })
  .meta({id: 'PendingRoundups'})
export type PendingRoundups = z.infer<typeof PendingRoundupsSchema>

export const ROUNDUP_TRANSFER_STATUSES = ['processing', 'completed', 'failed'] as const

export const RoundupTransferSchema = z
  .object({
    id: z.string().describe('rtr_…'),
    user_id: z.string(),
    amount: Major.describe('the pending total it moved'),
    currency: z.enum(ROUNDUP_CURRENCIES),
    roundup_count: z.number().int(),
    source_wallet_id: z.string(),
    destination_account_id: z.string(),
    destination_type: z.enum(['wallet', 'bank_account']),
    transaction_id: z.string().describe('the ledger transaction: a transfer_out, or an ACH withdrawal'),
    status: z.enum(ROUNDUP_TRANSFER_STATUSES),
    failure_reason: z.string().nullable(),
    created_at: Timestamp,
    completed_at: Timestamp.nullable(),
  })
  .meta({id: 'RoundupTransfer'})
export type RoundupTransfer = z.infer<typeof RoundupTransferSchema>

const NoBody = z.strictObject({}).optional()

const roundupRead = {a: 'roundups:read', b: 'payments:read'} as const
const roundupWrite = {a: 'roundups:write', b: 'payments:create'} as const
/** A refused multiplier's error also lists the allowed values. */
const multiplierRefusal = {multiplier: {allowed_multipliers: [...ROUNDUP_MULTIPLIERS]}}
const settingsErrors = [
  'NOT_FOUND',
  'INVALID_CURRENCY',
  'INVALID_DESTINATION_ACCOUNT',
  'ROUNDUP_CURRENCY_LOCKED',
  'DUPLICATE_TRANSACTION',
] as const

export const roundupEndpoints = {
  putRoundupSettings: {
    operationId: 'putRoundupSettings',
    method: 'PUT',
    path: '/users/{id}/roundup-settings',
    summary: "replace a user's round-up settings",
    tag: 'roundups',
    auth: 'bearer',
    scopes: roundupWrite,
    body: PutRoundupSettingsSchema,
    refusalDetails: multiplierRefusal,
    response: RoundupSettingsRecordSchema,
    surface: RoundupSettingsSurface,
    host: 'auth',
    status: 200,
    errors: [...settingsErrors],
    enveloped: true,
  },
  processRoundup: {
    operationId: 'processRoundup',
    method: 'POST',
    path: '/transactions/process',
    summary: "process a user's purchase: yields its round-up (once per transaction_id)",
    tag: 'roundups',
    auth: 'bearer',
    scopes: roundupWrite,
    body: ProcessRoundupSchema,
    response: RoundupSchema,
    surface: RoundupResultSurface,
    host: 'auth',
    status: 200,
    errors: ['INVALID_USER_ID', 'DUPLICATE_TRANSACTION'],
    enveloped: true,
  },
  enableRoundups: {
    operationId: 'enableRoundups',
    method: 'POST',
    path: '/roundupsvc/users/{id}/roundups/enable',
    summary: 'turn round-ups on for a user, optionally changing settings',
    tag: 'roundupsvc',
    auth: 'bearer',
    scopes: roundupWrite,
    body: EnableRoundupsSchema,
    bodyOptional: true,
    refusalDetails: multiplierRefusal,
    response: RoundupSettingsRecordSchema,
    surface: notShown<RoundupSettingsRecord>(),
    status: 200,
    errors: [...settingsErrors],
    enveloped: true,
  },
  getRoundupSettings: {
    operationId: 'getRoundupSettings',
    method: 'GET',
    path: '/roundupsvc/users/{id}/roundups/settings',
    summary: "get a user's round-up settings (the defaults until they are set)",
    tag: 'roundupsvc',
    auth: 'bearer',
    scopes: roundupRead,
    response: RoundupSettingsRecordSchema,
    surface: notShown<RoundupSettingsRecord>(),
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  updateRoundupSettings: {
    operationId: 'updateRoundupSettings',
    method: 'PUT',
    path: '/roundupsvc/users/{id}/roundups/settings',
    summary: "change some of a user's round-up settings",
    tag: 'roundupsvc',
    auth: 'bearer',
    scopes: roundupWrite,
    body: UpdateRoundupSettingsSchema,
    refusalDetails: multiplierRefusal,
    response: RoundupSettingsRecordSchema,
    surface: notShown<RoundupSettingsRecord>(),
    status: 200,
    errors: [...settingsErrors],
    enveloped: true,
  },
  getPendingRoundups: {
    operationId: 'getPendingRoundups',
    method: 'GET',
    path: '/roundupsvc/users/{id}/roundups/pending',
    summary: "a user's round-ups not yet transferred, and their total",
    tag: 'roundupsvc',
    auth: 'bearer',
    scopes: roundupRead,
    response: PendingRoundupsSchema,
    surface: notShown<PendingRoundups>(),
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  transferRoundups: {
    operationId: 'transferRoundups',
    method: 'POST',
    path: '/roundupsvc/users/{id}/roundups/transfer',
    summary: 'move every pending round-up of a user to the destination, as one ledger transfer',
    tag: 'roundupsvc',
    auth: 'bearer',
    scopes: {a: 'transfers:write', b: 'payments:create'},
    body: NoBody,
    response: RoundupTransferSchema,
    surface: notShown<RoundupTransfer>(),
    status: 201,
    errors: [
      'NOT_FOUND',
      'NO_PENDING_ROUNDUPS',
      'ROUNDUP_DESTINATION_REQUIRED',
      'INVALID_DESTINATION_ACCOUNT',
      'INSUFFICIENT_FUNDS',
      'AMOUNT_TOO_LARGE',
      'WALLET_NOT_ACTIVE',
      'DUPLICATE_TRANSACTION',
    ],
    enveloped: true,
  },
} satisfies Record<string, Endpoint>
