import type {AccessTokenView, RefreshedTokenView} from '../contract/index.js'
import {assertCredentialFitsEnvironment, decodeJwtPayload} from './environments.js'
import {PayctlError} from './errors.js'
import {type CachedToken, credentialFingerprint, type ResolvedProfile, storedProfile} from './profile-file.js'
import type {ProfileStore} from './profiles.js'

/** The auth calls the token manager needs, supplied by the client (they carry no Bearer of their own). */
export interface TokenEndpoints {
  exchange(body: {
    api_key: string
    api_secret?: string | undefined
    partner_id: string
  }): Promise<AccessTokenView>
  refresh(currentToken: string): Promise<RefreshedTokenView>
}

// Refresh ahead of expiry once less than this share of the token's life is left.
const REFRESH_WHEN_LEFT = 0.2
/** An access token's lifetime, as the interface documents it (`expires_in` 604800). */
const DOCUMENTED_LIFETIME_MS = 604_800_000

/**
 * Supplies the Bearer credential for a profile: a Variant B key as is, or a Variant A JWT that it
 * caches in the profile file, refreshes before expiry and re-obtains after a 401. Concurrent
 * callers in one process share one refresh; concurrent processes serialise on the file's lock
 * and reuse whatever token the first one wrote.
 */
export class TokenManager {
  readonly #profile: ResolvedProfile
  readonly #store: ProfileStore | undefined
  readonly #endpoints: TokenEndpoints
  #memory: CachedToken | undefined
  #inflight: Promise<CachedToken> | undefined

  constructor(profile: ResolvedProfile, store: ProfileStore | undefined, endpoints: TokenEndpoints) {
    this.#profile = profile
    this.#store = profile.stored ? store : undefined
    this.#endpoints = endpoints
  }

  get #fingerprint(): string | undefined {
    const {auth, baseUrl} = this.#profile
    return auth ? credentialFingerprint(auth, baseUrl) : undefined
  }

  /** The cached token for these credentials, if any (possibly expired). */
  cached(): CachedToken | undefined {
    if (this.#memory) return this.#memory
    const file = this.#store?.read()
    const token = file && storedProfile(file, this.#profile.name)?.token
    return token && token.for === this.#fingerprint ? token : undefined
  }

  /** The value to send as `Authorization: Bearer …`. */
  async bearer(): Promise<string> {
    const auth = this.#requireAuth()
    if (auth.variant === 'B') return auth.secretKey
    const token = this.cached()
    if (token && !needsRenewal(token)) return token.accessToken
    return (await this.#renew(token)).accessToken
  }

  /** Drop a token the service refused, and get a fresh one from the credentials. */
  async recover(refused: string): Promise<string> {
    const token = this.cached()
    if (token?.accessToken === refused) {
      this.#memory = undefined
      await this.#save(undefined, refused)
    }
    return this.bearer()
  }

  /** Force a refresh of the current token (`auth refresh`). */
  async refresh(): Promise<CachedToken> {
    this.#requireVariantA('refresh')
    return this.#renew(this.cached(), true)
  }

  /** Forget the cached token locally. */
  async forget(): Promise<void> {
    this.#memory = undefined
    await this.#save(undefined)
  }

  #requireAuth() {
    if (!this.#profile.auth) throw notLoggedIn(this.#profile)
    return this.#profile.auth
  }

  #requireVariantA(what: string) {
    const auth = this.#requireAuth()
    if (auth.variant !== 'A') {
      throw new PayctlError({
        kind: 'usage',
        code: 'NOT_VARIANT_A',
        message: `${what} applies to access tokens obtained with partner credentials; this profile uses an API key`,
      })
    }
    return auth
  }

  #renew(current: CachedToken | undefined, force = false): Promise<CachedToken> {
    this.#inflight ??= this.#renewNow(current, force).finally(() => {
      this.#inflight = undefined
    })
    return this.#inflight
  }

  // The network call happens outside the file's lock (it may wait on retries); only the write is
  // locked. Two processes renewing at once both get valid tokens, and the file keeps one of them.
  async #renewNow(current: CachedToken | undefined, force: boolean): Promise<CachedToken> {
    const latest = this.cached()
    if (!force && latest && !needsRenewal(latest) && latest.accessToken !== current?.accessToken)
      return latest
    const base = latest ?? current
    let record: RefreshedTokenView | undefined
    if (base && msLeft(base) > 5_000) {
      try {
        record = await this.#endpoints.refresh(base.accessToken)
      } catch (err) {
        if (!(err instanceof PayctlError) || err.kind !== 'auth') throw err
      }
    }
    record ??= await this.#exchange()
    const token = this.#toCached(record, base)
    this.#memory = token
    await this.#save(token)
    return token
  }

  async #exchange(): Promise<AccessTokenView> {
    const auth = this.#requireVariantA('token exchange')
    if (!auth.apiKey || !auth.partnerId) {
      throw new PayctlError({
        kind: 'auth',
        code: 'CREDENTIALS_INCOMPLETE',
        message: `partner credentials need an API key and a partner id (profile "${this.#profile.name}")`,
        suggestions: [`Try: payctl auth login --env ${this.#profile.environment}`],
      })
    }
    // The key and secret travel in the body, not as a Bearer: check them against the environment too.
    const {environment, kind, baseUrl} = this.#profile
    for (const credential of [auth.apiKey, auth.apiSecret ?? '']) {
      assertCredentialFitsEnvironment(credential, environment, kind, baseUrl)
    }
    return this.#endpoints.exchange({
      api_key: auth.apiKey,
      api_secret: auth.apiSecret,
      partner_id: auth.partnerId,
    })
  }

  /**
   * A refresh may answer with only `access_token`: its expiry is then the JWT's `exp` claim, else
   * the documented 7 days; scopes and partner are kept from the token it replaces.
   */
  #toCached(record: RefreshedTokenView, previous?: CachedToken): CachedToken {
    const exp = decodeJwtPayload(record.access_token)?.exp
    const expiresAt =
      record.expires_in !== undefined
        ? Date.now() + record.expires_in * 1000
        : typeof exp === 'number'
          ? exp * 1000
          : Date.now() + DOCUMENTED_LIFETIME_MS
    return {
      accessToken: record.access_token,
      expiresAt: new Date(expiresAt).toISOString(),
      scopes: record.scopes ?? previous?.scopes ?? [],
      partnerId: record.partner_id ?? previous?.partnerId ?? this.#profile.auth?.partnerId ?? '',
      for: this.#fingerprint ?? '',
    }
  }

  async #save(token: CachedToken | undefined, onlyIfToken?: string): Promise<void> {
    if (!this.#store) return
    await this.#store.update((file) => {
      const profile = storedProfile(file, this.#profile.name)
      if (!profile) return
      if (onlyIfToken !== undefined && profile.token?.accessToken !== onlyIfToken) return
      profile.token = token
    })
  }
}

/** The error for a profile with no credentials (or, for refresh and revoke, no token). */
export function notLoggedIn(profile: ResolvedProfile, what = 'credentials'): PayctlError {
  return new PayctlError({
    kind: 'auth',
    code: 'NOT_LOGGED_IN',
    message: `no ${what} for profile "${profile.name}"`,
    suggestions: [`Try: payctl auth login --env ${profile.environment}`],
  })
}

function msLeft(token: CachedToken): number {
  return Date.parse(token.expiresAt) - Date.now()
}

/** Whether a cached token is to be renewed before use: nearly expired, or in the last fifth of its life. */
export function needsRenewal(token: CachedToken): boolean {
  const left = msLeft(token)
  if (left <= 1_000) return true
  // Unknown issue time: judge by the lifetime implied by the JWT's iat/exp, else by 7 days.
  const lifetime = lifetimeMs(token) ?? DOCUMENTED_LIFETIME_MS
  return left < lifetime * REFRESH_WHEN_LEFT
}

function lifetimeMs(token: CachedToken): number | undefined {
  const {iat, exp} = decodeJwtPayload(token.accessToken) ?? {}
  return typeof iat === 'number' && typeof exp === 'number' ? (exp - iat) * 1000 : undefined
}
