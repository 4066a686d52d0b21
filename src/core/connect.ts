import {PayctlClient} from './client.js'
import {environmentKind} from './environments.js'
import {usageError} from './errors.js'
import {
  normaliseBaseUrl,
  type ProfileOverrides,
  ProfileStore,
  type ResolvedProfile,
  resolveProfile,
  type StoredAuth,
  unnamedEnvironment,
} from './profiles.js'
import type {TransportOptions} from './transport.js'

/**
 * `connect()`, payctl's client for code of its own (a test suite, a script): through a profile as the
 * CLI resolves it, or with credentials given directly, which touches no file and no environment
 * variable (docs/library.md).
 */

/** A profile, resolved as the CLI resolves it: these values, then `PAYCTL_*` variables, then the profile file. */
export interface ProfileConnectOptions extends ProfileOverrides {
  /** Where the profile file is; default the CLI's config dir. */
  configDir?: string
  apiKey?: never
  apiSecret?: never
  partnerId?: never
  secretKey?: never
}

/** What credentials given directly go with. */
interface DirectOptions {
  /** The service's base URL, without `/v1` (a sandbox's `url`). */
  baseUrl: string
  /**
   * The environment's name: what the client's safety checks go by (a live key never goes to a
   * sandbox, a test key never to production). Default: `local` at a loopback URL, else `production`
   * for a live key and `sandbox` for a test key, as for a CI job with only `PAYCTL_*` variables.
   */
  environment?: string | undefined
  /** A separate auth host for the token calls, when the service has one. */
  authUrl?: string | undefined
  profile?: never
  configDir?: never
}

/** Variant A: partner credentials, exchanged for an access token that is kept in memory and renewed. */
export interface PartnerCredentialsOptions extends DirectOptions {
  apiKey: string
  apiSecret: string
  partnerId: string
  secretKey?: never
}

/** Variant B: a secret API key, sent as the Bearer credential of every call. */
export interface SecretKeyOptions extends DirectOptions {
  secretKey: string
  partnerId?: string | undefined
  apiKey?: never
  apiSecret?: never
}

export type ConnectOptions = TransportOptions &
  (ProfileConnectOptions | PartnerCredentialsOptions | SecretKeyOptions)

/** The keys of ConnectOptions that are not the transport's. */
const CONNECTION_KEYS = [
  'profile',
  'environment',
  'baseUrl',
  'configDir',
  'authUrl',
  'apiKey',
  'apiSecret',
  'partnerId',
  'secretKey',
] as const

/**
 * A client with the same typed calls, retries and idempotency keys as the CLI's: for a profile
 * (`connect()`, `connect({profile: 'ci'})`), or for credentials given directly
 * (`connect({baseUrl, apiKey, apiSecret, partnerId})`, `connect({baseUrl, secretKey})`), whose
 * tokens are kept in memory: no profile file is read or written.
 */
export function connect(opts: ConnectOptions = {}): PayctlClient {
  const given = opts as Partial<Record<(typeof CONNECTION_KEYS)[number], string>>
  const transport: Record<string, unknown> = {...opts}
  for (const key of CONNECTION_KEYS) delete transport[key]
  if (given.apiKey === undefined && given.apiSecret === undefined && given.secretKey === undefined) {
    if (given.partnerId !== undefined) throw incomplete(['apiKey', 'apiSecret'])
    const store = new ProfileStore(given.configDir)
    const resolved = resolveProfile(store.read(), given)
    return new PayctlClient({profile: resolved, store, ...(transport as TransportOptions)})
  }
  return new PayctlClient({profile: directProfile(given), ...(transport as TransportOptions)})
}

/** The profile of credentials given directly: never stored, so the token manager keeps tokens in memory. */
function directProfile(given: Partial<Record<(typeof CONNECTION_KEYS)[number], string>>): ResolvedProfile {
  if (given.profile !== undefined || given.configDir !== undefined)
    throw usageError('connect() takes a profile or credentials, not both', 'INVALID_OPTIONS')
  if (given.secretKey !== undefined && (given.apiKey !== undefined || given.apiSecret !== undefined))
    throw usageError(
      'connect() takes a secretKey (Variant B) or an apiKey, apiSecret and partnerId (Variant A), not both',
      'INVALID_OPTIONS',
    )
  let auth: StoredAuth
  if (given.secretKey !== undefined) {
    auth = {variant: 'B', secretKey: given.secretKey, partnerId: given.partnerId}
  } else {
    const {apiKey, apiSecret, partnerId} = given
    if (!apiKey || !apiSecret || !partnerId)
      throw incomplete((['apiKey', 'apiSecret', 'partnerId'] as const).filter((k) => !given[k]))
    auth = {variant: 'A', apiKey, apiSecret, partnerId}
  }
  if (!given.baseUrl)
    throw usageError('connect() with credentials needs the baseUrl they are for', 'INVALID_OPTIONS')
  const baseUrl = normaliseBaseUrl(given.baseUrl)
  const environment = given.environment || unnamedEnvironment(baseUrl, auth)
  return {
    name: 'connect()',
    environment,
    kind: environmentKind(environment, baseUrl),
    baseUrl,
    authUrl: given.authUrl === undefined ? undefined : normaliseBaseUrl(given.authUrl, 'auth URL'),
    auth,
    stored: false,
    sources: {profile: 'flag', environment: 'flag', baseUrl: 'flag', authUrl: 'flag', credentials: 'flag'},
  }
}

function incomplete(missing: readonly string[]) {
  return usageError(
    `partner credentials need an apiKey, an apiSecret and a partnerId; ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing (or give a secretKey)`,
    'CREDENTIALS_INCOMPLETE',
  )
}
