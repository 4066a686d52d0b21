import {PayctlClient} from './client.js'
import {environmentKind} from './environments.js'
import {PayctlError} from './errors.js'
import {
  type CachedToken,
  checkProfileName,
  credentialFingerprint,
  type ProfileStore,
  type ResolvedProfile,
  type StoredAuth,
  storedProfile,
} from './profiles.js'
import {Transport, type TransportOptions} from './transport.js'

export interface LoginInput {
  name: string
  environment: string
  baseUrl: string
  authUrl?: string | undefined
  auth: StoredAuth
}

/** What a successful login or status check found out about the credentials. */
export interface SessionInfo {
  profile: string
  environment: string
  baseUrl: string
  /** A: partner credentials and access tokens; B: a secret API key; none: logged out. */
  variant: 'A' | 'B' | 'none'
  partnerId: string | undefined
  apiKey: string | undefined
  scopes: string[] | undefined
  expiresAt: string | undefined
}

function sessionInfo(profile: ResolvedProfile, token: CachedToken | undefined): SessionInfo {
  const auth = profile.auth
  return {
    profile: profile.name,
    environment: profile.environment,
    baseUrl: profile.baseUrl,
    variant: auth?.variant ?? 'none',
    partnerId: token?.partnerId ?? auth?.partnerId,
    apiKey: auth?.variant === 'A' ? auth.apiKey : undefined,
    scopes: token?.scopes,
    expiresAt: token?.expiresAt,
  }
}

/**
 * Prove that the client's credentials work with one cheap authenticated read. A 403 still
 * proves them (the credential is valid, just narrow); a 401 is thrown.
 */
/**
 * Fail unless something answers HTTP at `baseUrl` (any status will do): a wrong or unreachable
 * address is said once, before anyone types a secret for it.
 */
export async function assertReachable(baseUrl: string, options: TransportOptions = {}): Promise<void> {
  const transport = new Transport({...options, retries: 0, timeoutMs: 10_000})
  await transport.send({method: 'GET', url: `${baseUrl}/v1/`, headers: {}}, {retry: false})
}

export async function verifyCredentials(client: PayctlClient): Promise<void> {
  try {
    // Any wallet id will do: only whether the credential is refused matters. The wallet read is an
    // operation the interface shows, so this works against any service, not only the sandbox.
    await client.call('getWallet', {params: {id: 'wal_payctl_credential_check'}})
  } catch (err) {
    // Not found, or a key without the permission: the service took the credential. A refusal
    // (401), a rate limit (429) or a server error proves nothing, and is reported.
    const status = err instanceof PayctlError ? err.status : undefined
    if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 429) return
    throw err
  }
}

/** Check credentials against the service, then save them as a profile and make it current. */
export async function login(
  store: ProfileStore,
  input: LoginInput,
  transport: TransportOptions = {},
): Promise<SessionInfo> {
  checkProfileName(input.name)
  const profile: ResolvedProfile = {
    name: input.name,
    environment: input.environment,
    kind: environmentKind(input.environment, input.baseUrl),
    baseUrl: input.baseUrl.replace(/\/+$/, ''),
    authUrl: input.authUrl?.replace(/\/+$/, ''),
    auth: input.auth,
    stored: false,
    sources: {profile: 'flag', environment: 'flag', baseUrl: 'flag', authUrl: 'flag', credentials: 'flag'},
  }
  const client = new PayctlClient({profile, ...transport})
  let token: CachedToken | undefined
  if (input.auth.variant === 'A') {
    await client.tokens.bearer()
    token = client.tokens.cached()
  } else {
    await verifyCredentials(client)
  }
  await store.update((file) => {
    file.profiles[input.name] = {
      environment: profile.environment,
      baseUrl: profile.baseUrl,
      ...(profile.authUrl ? {authUrl: profile.authUrl} : {}),
      auth: input.auth,
      ...(token ? {token: {...token, for: credentialFingerprint(input.auth, profile.baseUrl)}} : {}),
    }
    file.currentProfile = input.name
  })
  return sessionInfo(profile, token)
}

/** Describe the profile's session, checking with the service that its credentials work. */
export async function status(client: PayctlClient): Promise<SessionInfo> {
  if (client.profile.auth?.variant === 'A') await client.tokens.bearer()
  await verifyCredentials(client)
  return sessionInfo(client.profile, client.tokens.cached())
}

/** Describe the profile's session from what is stored, without calling the service. */
export function localSession(client: PayctlClient): SessionInfo {
  return sessionInfo(client.profile, client.tokens.cached())
}

/**
 * Revoke the profile's access token with the service (Variant A; an API key cannot be revoked
 * from here), then forget its credentials and token locally. Returns whether a token was revoked.
 * With `everywhere`, every token of the partner is revoked first, wherever it was handed out.
 */
export async function logout(
  store: ProfileStore,
  client: PayctlClient,
  opts: {everywhere?: boolean} = {},
): Promise<{revoked: boolean}> {
  let revoked = false
  if (opts.everywhere) {
    await client.call('revokeAllTokens')
    revoked = true
  }
  const token = client.tokens.cached()
  if (!revoked && client.profile.auth?.variant === 'A' && token && Date.parse(token.expiresAt) > Date.now()) {
    try {
      await client.call('revokeToken', {bearer: token.accessToken})
      revoked = true
    } catch (err) {
      // A token the service already refuses is as good as revoked; anything else is worth telling.
      if (!(err instanceof PayctlError) || err.status !== 401) throw err
    }
  }
  await store.update((file) => {
    const profile = storedProfile(file, client.profile.name)
    if (profile) {
      delete profile.auth
      delete profile.token
    }
  })
  return {revoked}
}

/**
 * Write the profile of a local sandbox (its URL and partner credentials), replacing any cached
 * token, and make it current when no profile is.
 */
export async function saveLocalProfile(
  store: ProfileStore,
  name: string,
  baseUrl: string,
  auth: StoredAuth,
): Promise<void> {
  checkProfileName(name)
  await store.update((file) => {
    file.profiles[name] = {environment: 'local', baseUrl, auth}
    if (!file.currentProfile || !storedProfile(file, file.currentProfile)) file.currentProfile = name
  })
}
