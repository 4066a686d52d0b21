import {endpoints} from '../../contract/api/endpoints.js'
import {TOKEN_SCOPES} from '../../contract/api/scopes.js'
import type {AccessToken, MintedJwt} from '../../contract/auth.js'
import {callerOf, partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {RATE_LIMITS} from '../http/rate-limiter.js'
import {type SandboxCredentials, sameSecret} from '../tenancy/partners.js'

// Long: a list of short token operations that share the helpers defined first.
export function authRoutes(
  ctx: Pick<SandboxContext, 'partners' | 'tokens' | 'limiter' | 'settings'>,
): RouteSpec[] {
  const {partners, tokens, limiter, settings} = ctx

  async function accessToken(
    partner: SandboxCredentials,
    scopes: readonly string[],
    family?: string,
  ): Promise<AccessToken> {
    const {token} = await tokens.issue({
      partnerId: partner.partnerId,
      scopes,
      variant: 'A',
      ttlSeconds: settings.tokenTtlSeconds,
      credentials: partner,
      family,
    })
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: settings.tokenTtlSeconds,
      partner_id: partner.partnerId,
      scopes: [...scopes],
    }
  }

  return [
    route({
      endpoint: endpoints.createToken,
      async run(input) {
        const {body} = input
        // Failures count per API key and address: someone else's failures, or a mistyped key,
        // never lock out the right credentials (docs/sandbox.md#rate-limits).
        const subject = `exchange ${input.ip} ${body.api_key}`
        const refuse = (message: string, details?: Record<string, unknown>) => {
          input.setHeaders(limiter.noteFailedAuth(subject, RATE_LIMITS.failedAuthPerMinute))
          return new ApiError('INVALID_CREDENTIALS', message, details)
        }
        if (/^(pk_)?live_/.test(body.api_key))
          throw refuse('Live credentials are not accepted by the sandbox')
        if (body.api_secret === undefined) {
          throw refuse('api_secret is required: the sandbox does not accept the key-only quickstart form', {
            field: 'api_secret',
          })
        }
        const partner = partners.byPublicKey(body.api_key)
        if (
          partner === undefined ||
          !sameSecret(partner.apiSecret, body.api_secret) ||
          partner.partnerId !== body.partner_id
        ) {
          throw refuse('Invalid API key, API secret or partner id')
        }
        limiter.forgiveAuth(subject)
        return accessToken(partner, [...new Set(body.scopes ?? TOKEN_SCOPES)])
      },
    }),
    route({
      endpoint: endpoints.refreshToken,
      async run(input) {
        const caller = callerOf(input)
        if (caller.kind !== 'access-token') throw new Error('refresh requires an access token')
        // The new token joins its parent's family: revoking either revokes both.
        return accessToken(caller.partner, caller.claims.scopes, caller.claims.fam)
      },
    }),
    route({
      endpoint: endpoints.revokeToken,
      run(input) {
        const caller = callerOf(input)
        if (caller.kind !== 'access-token') throw new Error('revoke requires an access token')
        tokens.revoke(caller.claims)
        return {revoked: true}
      },
    }),
    route({
      endpoint: endpoints.revokeAllTokens,
      run(input) {
        tokens.revokeAll(partnerOf(input))
        return {revoked: true}
      },
    }),
    route({
      endpoint: endpoints.mintJwt,
      async run(input): Promise<MintedJwt> {
        const {body} = input
        const caller = callerOf(input)
        const scopes = [...new Set(body.scopes)]
        const {token, claims} = await tokens.issue({
          partnerId: caller.partner.partnerId,
          scopes,
          variant: 'B',
          ttlSeconds: body.expires_in,
          credentials: caller.partner,
        })
        return {
          token,
          token_type: 'Bearer',
          expires_in: body.expires_in,
          expires_at: new Date(claims.exp * 1000).toISOString(),
          scopes,
        }
      },
    }),
  ]
}
