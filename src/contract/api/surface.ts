import {z} from 'zod'

/**
 * The service surface: what the platform's interface document shows of each answer, and only that.
 * The client checks every answer against these and nothing more, so payctl works against any
 * service that implements the document, not only against its own sandbox.
 *
 * - A field the document shows is required and typed.
 * - A record the document leaves "not shown" requires nothing (a user: only `id`).
 * - Unknown fields are kept, never dropped: every object here is loose.
 *
 * The sandbox's records (in the feature files: wallets.ts, users.ts…) extend these and stay
 * strict; the sandbox, its tests and the OpenAPI document use them.
 */

const Num = z.number()

/** The balance object of a wallet: `available`, `pending`, `reserved`, `total` and `currency`. */
export const BalanceSurface = z.looseObject({
  available: Num,
  pending: Num,
  reserved: Num,
  total: Num,
  currency: z.string(),
})

export const WalletLimitsSurface = z.looseObject({daily: Num, monthly: Num, transaction: Num})

/** The wallet record, as the document's table shows it. `label` is optional on creation, so here too. */
export const WalletSurface = z.looseObject({
  id: z.string(),
  userId: z.string(),
  currency: z.string(),
  balance: BalanceSurface,
  status: z.string(),
  label: z.string().optional(),
  limits: WalletLimitsSurface,
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type WalletView = z.infer<typeof WalletSurface>

/** The SDK's wallet list operation: "an object with a `wallets` array" (paging is not shown). */
export const WalletListSurface = z.looseObject({wallets: z.array(WalletSurface)})

/** The transaction record; the fields the document marks "if applicable" or conditional are optional. */
export const TransactionSurface = z.looseObject({
  id: z.string(),
  type: z.string(),
  status: z.string(),
  amount: Num,
  currency: z.string(),
  fee: Num,
  netAmount: Num,
  sourceWalletId: z.string().optional(),
  destinationWalletId: z.string().optional(),
  paymentMethodId: z.string().optional(),
  description: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  estimatedCompletion: z.string().optional(),
  failureReason: z.string().optional(),
})
export type TransactionView = z.infer<typeof TransactionSurface>

/** Variant A's access token record, answered by the token exchange. */
export const AccessTokenSurface = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number(),
  partner_id: z.string(),
  scopes: z.array(z.string()),
})
export type AccessTokenView = z.infer<typeof AccessTokenSurface>

/** Refresh answers "an object with `access_token`"; the rest of the token record may or may not be there. */
export const RefreshedTokenSurface = AccessTokenSurface.partial().required({access_token: true})
export type RefreshedTokenView = z.infer<typeof RefreshedTokenSurface>

/** A user record: "not shown beyond `id`". */
export const UserSurface = z.looseObject({id: z.string()})

/** The connect answer carries a link token, in either spelling the document mentions. */
export const LinkTokenSurface = z
  .looseObject({linkToken: z.string().optional(), link_token: z.string().optional()})
  .refine((v) => v.linkToken !== undefined || v.link_token !== undefined, {
    message: 'expected a link token (linkToken or link_token)',
  })

/** PUT /users/{id}/roundup-settings answers "settings including `enabled`". */
export const RoundupSettingsSurface = z.looseObject({
  enabled: z.boolean(),
  multiplier: Num.optional(),
  max_roundup_amount: Num.optional(),
  destination_account_id: z.string().nullish(),
})

/** POST /transactions/process answers "an object with `roundup_amount`". */
export const RoundupResultSurface = z.looseObject({roundup_amount: Num})

/**
 * A record whose fields the document leaves "not shown" (and the answers of revoke, the round-up
 * product, BNPL, the wallet product): any JSON object, and an empty 2xx or 204 body reads as `{}`.
 * `T` names the fields payctl knows from its sandbox; they are `unknown` here, to be checked where
 * they are used.
 */
export type Loose<T> = {[K in keyof T]?: unknown} & {[key: string]: unknown}
export function notShown<T = Record<string, never>>(): z.ZodType<Loose<T>> {
  return z.looseObject({}) as unknown as z.ZodType<Loose<T>>
}
