import type {Endpoint} from '../../contract/api/endpoint.js'
import {SANDBOX_ADMIN_SCOPE} from '../../contract/api/scopes.js'
import {AuthFailure} from '../http/api-error.js'
import type {PartnerDirectory, SandboxCredentials} from './partners.js'
import type {TokenClaims, TokenService, TokenVariant, VerifiedToken} from './tokens.js'

/** Who is calling, once the Authorization header has been accepted. */
export type Principal =
  | {kind: 'access-token'; partner: SandboxCredentials; claims: TokenClaims}
  | {kind: 'secret-key'; partner: SandboxCredentials}
  | {kind: 'minted-jwt'; partner: SandboxCredentials; claims: TokenClaims}

type Bearer = {kind: 'missing'} | {kind: 'not-bearer'} | {kind: 'credential'; value: string}

const BEARER = /^bearer +(\S+) *$/i

function readBearer(header: string | undefined): Bearer {
  if (header === undefined || header.trim() === '' || /^bearer *$/i.test(header.trim()))
    return {kind: 'missing'}
  const match = BEARER.exec(header)
  return match?.[1] === undefined ? {kind: 'not-bearer'} : {kind: 'credential', value: match[1]}
}

/** What a Bearer credential looks like, from its prefix alone. */
function kindOf(credential: string): 'secret-key' | 'live-key' | 'public-key' | 'api-secret' | 'jwt' {
  if (credential.startsWith('test_')) return 'secret-key'
  if (credential.startsWith('live_')) return 'live-key'
  if (credential.startsWith('pk_')) return 'public-key'
  if (credential.startsWith('sk_')) return 'api-secret'
  return 'jwt'
}

const KEY_REFUSALS = {
  'live-key': 'Live keys are not accepted by the sandbox; use your test_ secret key',
  'public-key':
    'A public API key (pk_…) is not a credential on its own: exchange it with its secret at POST /v1/auth/token, or send your test_ secret key',
  'api-secret':
    'An API secret (sk_…) is not a Bearer credential: exchange it with the API key at POST /v1/auth/token',
} as const

/** Mark a refusal as a guessed credential (see AuthFailure.guess). */
function guessed(failure: AuthFailure): AuthFailure {
  failure.guess = true
  return failure
}

function tokenRefusal(result: Exclude<VerifiedToken, {ok: true}>, variant: TokenVariant): AuthFailure {
  if (result.reason === 'invalid') return guessed(plainTokenRefusal(result, variant))
  return plainTokenRefusal(result, variant)
}

function plainTokenRefusal(result: Exclude<VerifiedToken, {ok: true}>, variant: TokenVariant): AuthFailure {
  if (variant === 'B') {
    return result.reason === 'expired'
      ? new AuthFailure('B', 'expired_token', `JWT expired at ${result.expiredAt}; mint a new one`)
      : new AuthFailure('B', 'invalid_api_key', refusalMessage(result.reason))
  }
  return result.reason === 'expired'
    ? new AuthFailure('A', 'TOKEN_EXPIRED', 'Access token has expired', {expired_at: result.expiredAt})
    : new AuthFailure('A', 'TOKEN_INVALID', refusalMessage(result.reason))
}

function refusalMessage(
  reason: 'invalid' | 'revoked' | 'wrong_env' | 'unknown_partner' | 'superseded',
): string {
  switch (reason) {
    case 'revoked':
      return 'Token has been revoked'
    case 'superseded':
      return "Token was issued before the partner's credentials changed or all its tokens were revoked"
    case 'wrong_env':
      return 'Token was not issued for the sandbox environment'
    case 'unknown_partner':
      return 'Token belongs to a partner this sandbox does not know'
    default:
      return 'Token is malformed or its signature is invalid'
  }
}

/** Turns the Authorization header into a Principal for an endpoint, or throws the refusal. */
export class Authenticator {
  constructor(
    private readonly partners: PartnerDirectory,
    private readonly tokens: TokenService,
  ) {}

  /** Resolve the caller of `endpoint`; undefined for endpoints that take no Authorization header. */
  async authenticate(endpoint: Endpoint, header: string | undefined): Promise<Principal | undefined> {
    return this.authenticateNow(endpoint, header)
  }

  /**
   * As `authenticate`, without waiting when it can: a token whose signature was verified before
   * (every request of a client after its first) is answered at once, another through a promise.
   * Refusals are thrown, or rejected, alike.
   */
  authenticateNow(
    endpoint: Endpoint,
    header: string | undefined,
  ): Principal | undefined | Promise<Principal | undefined> {
    switch (endpoint.auth) {
      case 'none':
      case 'credentials':
        return undefined
      case 'token':
        return this.accessToken(endpoint, header)
      case 'secret-key':
        return then(this.anyCredential(header), (principal) => {
          if (principal.kind !== 'secret-key') {
            throw new AuthFailure(
              'B',
              'insufficient_permissions',
              'Minting a JWT needs your secret key (test_…) as Bearer, not a token',
            )
          }
          return principal
        })
      case 'bearer':
        return then(this.anyCredential(header), (principal) => {
          checkScope(endpoint, principal)
          return principal
        })
      case 'sandbox-admin':
        return then(this.anyCredential(header), adminOnly)
    }
  }

  /** Refresh and revoke: only a Variant A access token will do, and every refusal is Variant A. */
  private accessToken(endpoint: Endpoint, header: string | undefined): Principal | Promise<Principal> {
    const bearer = readBearer(header)
    if (bearer.kind === 'missing') {
      throw new AuthFailure(
        'A',
        'TOKEN_INVALID',
        'Missing access token: send Authorization: Bearer <access_token>',
      )
    }
    if (bearer.kind === 'not-bearer') {
      throw new AuthFailure('A', 'TOKEN_INVALID', 'Authorization must be "Bearer <access_token>"')
    }
    if (kindOf(bearer.value) !== 'jwt') {
      throw new AuthFailure(
        'A',
        'TOKEN_INVALID',
        `POST /v1${endpoint.path} takes a Variant A access token from POST /v1/auth/token, not an API key`,
      )
    }
    return then(this.tokens.verify(bearer.value), (result) => {
      if (!result.ok) throw tokenRefusal(result, 'A')
      if (result.claims.variant !== 'A') {
        throw new AuthFailure(
          'A',
          'TOKEN_INVALID',
          `POST /v1${endpoint.path} takes a Variant A access token, not a minted Variant B JWT`,
        )
      }
      const partner = this.partners.get(result.claims.partner_id)
      if (partner === undefined)
        throw new AuthFailure('A', 'TOKEN_INVALID', refusalMessage('unknown_partner'))
      if (!this.tokens.isCurrentVersion(result.claims, partner)) {
        throw new AuthFailure('A', 'TOKEN_INVALID', refusalMessage('superseded'))
      }
      return {kind: 'access-token', partner, claims: result.claims}
    })
  }

  private anyCredential(header: string | undefined): Principal | Promise<Principal> {
    const bearer = readBearer(header)
    if (bearer.kind === 'missing') {
      throw new AuthFailure(
        'B',
        'missing_authorization',
        'Missing Authorization header: send Authorization: Bearer <access token or API key>',
      )
    }
    if (bearer.kind === 'not-bearer') {
      throw new AuthFailure(
        'B',
        'invalid_api_key',
        'Authorization must be "Bearer <access token or API key>"',
      )
    }
    const credential = bearer.value
    const kind = kindOf(credential)
    if (kind === 'secret-key') {
      const partner = this.partners.bySecret(credential)
      if (partner === undefined) throw guessed(new AuthFailure('B', 'invalid_api_key', 'Unknown API key'))
      return {kind: 'secret-key', partner}
    }
    if (kind !== 'jwt') throw new AuthFailure('B', 'invalid_api_key', KEY_REFUSALS[kind])
    return then(this.tokens.verify(credential), (result) => this.tokenPrincipal(result))
  }

  /** The caller a verified JWT names, or its refusal. */
  private tokenPrincipal(result: VerifiedToken): Principal {
    if (!result.ok) throw tokenRefusal(result, result.variant ?? 'A')
    const {claims} = result
    const partner = this.partners.get(claims.partner_id)
    if (partner === undefined) {
      throw claims.variant === 'A'
        ? new AuthFailure('A', 'TOKEN_INVALID', refusalMessage('unknown_partner'))
        : new AuthFailure('B', 'invalid_api_key', refusalMessage('unknown_partner'))
    }
    if (!this.tokens.isCurrentVersion(claims, partner)) {
      throw claims.variant === 'A'
        ? new AuthFailure('A', 'TOKEN_INVALID', refusalMessage('superseded'))
        : new AuthFailure('B', 'invalid_api_key', refusalMessage('superseded'))
    }
    return claims.variant === 'A'
      ? {kind: 'access-token', partner, claims}
      : {kind: 'minted-jwt', partner, claims}
  }
}

/** `next` of `value` at once, or of what the promise gives once it settles. */
function then<T, U>(value: T | Promise<T>, next: (value: T) => U): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}

/**
 * Resetting data, moving the clock and making events are the partner's own acts: not for a
 * narrowed token or a JWT minted for less trusted code.
 */
function adminOnly(principal: Principal): Principal {
  if (principal.kind === 'secret-key') return principal
  if (principal.kind === 'access-token') {
    if (principal.claims.scopes.includes(SANDBOX_ADMIN_SCOPE)) return principal
    throw new AuthFailure('A', 'INSUFFICIENT_SCOPE', `Access token lacks the ${SANDBOX_ADMIN_SCOPE} scope`, {
      required_scope: SANDBOX_ADMIN_SCOPE,
      granted_scopes: principal.claims.scopes,
    })
  }
  throw new AuthFailure(
    'B',
    'insufficient_permissions',
    `This route takes your secret key (test_…) or an access token with the ${SANDBOX_ADMIN_SCOPE} scope, not a minted JWT`,
  )
}

function checkScope(endpoint: Endpoint, principal: Principal): void {
  if (endpoint.scopes === undefined || principal.kind === 'secret-key') return
  if (principal.kind === 'access-token') {
    const required = endpoint.scopes.a
    if (!principal.claims.scopes.includes(required)) {
      throw new AuthFailure('A', 'INSUFFICIENT_SCOPE', `Access token lacks the ${required} scope`, {
        required_scope: required,
        granted_scopes: principal.claims.scopes,
      })
    }
    return
  }
  const required = endpoint.scopes.b
  if (!principal.claims.scopes.includes(required)) {
    throw new AuthFailure('B', 'insufficient_permissions', `JWT lacks the ${required} scope`)
  }
}
