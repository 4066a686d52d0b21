import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {SCOPES_B, TOKEN_SCOPES} from './api/scopes.js'
import {AccessTokenSurface, notShown, RefreshedTokenSurface} from './api/surface.js'
import {Id, Timestamp} from './fields.js'

/**
 * Credentials: the Variant A token exchange, refresh and revocation, and Variant B's JWT minting
 * (docs/auth.md).
 */

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

export const authEndpoints = {
  createToken: {
    operationId: 'createToken',
    method: 'POST',
    path: '/auth/token',
    summary: 'exchange partner credentials for an access token (Variant A)',
    tag: 'auth',
    auth: 'credentials',
    body: TokenRequestSchema,
    response: AccessTokenSchema,
    surface: AccessTokenSurface,
    status: 200,
    errors: ['INVALID_CREDENTIALS', 'RATE_LIMITED'],
    enveloped: false,
  },
  refreshToken: {
    operationId: 'refreshToken',
    method: 'POST',
    path: '/auth/refresh',
    summary: 'exchange the current access token for a new one',
    tag: 'auth',
    auth: 'token',
    response: AccessTokenSchema,
    surface: RefreshedTokenSurface,
    status: 200,
    errors: [],
    enveloped: false,
  },
  revokeToken: {
    operationId: 'revokeToken',
    method: 'POST',
    path: '/auth/revoke',
    summary: 'revoke the access token sent as Bearer',
    tag: 'auth',
    auth: 'token',
    response: RevokeResultSchema,
    surface: notShown(),
    status: 200,
    errors: [],
    enveloped: false,
  },
  revokeAllTokens: {
    operationId: 'revokeAllTokens',
    method: 'POST',
    path: '/auth/revoke-all',
    summary:
      "sandbox extension: revoke every access token and minted JWT of the caller's partner, refreshed ones included",
    tag: 'auth',
    auth: 'sandbox-admin',
    response: RevokeResultSchema,
    status: 200,
    errors: [],
    enveloped: false,
  },
  mintJwt: {
    operationId: 'mintJwt',
    method: 'POST',
    path: '/auth/jwt',
    summary: 'mint a short-lived scoped JWT from a secret API key (Variant B)',
    tag: 'auth',
    auth: 'secret-key',
    body: MintJwtRequestSchema,
    response: MintedJwtSchema,
    status: 201,
    errors: [],
    enveloped: false,
  },
} satisfies Record<string, Endpoint>
