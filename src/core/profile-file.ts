import {lstatSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {isLocalUrl} from '../contract/loopback.js'
import {configDirProblem} from './config-dir.js'
import {DEFAULT_LOCAL_URL, type EnvironmentKind, environmentKind} from './environments.js'
import {PayctlError} from './errors.js'
import {sha256Hex} from './sha256.js'

/**
 * What the profile file holds, and how the profile a command acts on is worked out from it, its
 * environment variables and flags: all of profiles but the store that reads and writes the file
 * (profiles.ts), which needs conf. The fast path of bin/run.js reads the file with this alone.
 */

/** Variant A partner credentials, or a Variant B secret API key. */
export type StoredAuth =
  | {variant: 'A'; apiKey: string; apiSecret?: string | undefined; partnerId: string}
  | {variant: 'B'; secretKey: string; partnerId?: string | undefined}

/** A Variant A access token cached with its expiry and the credentials it was issued for. */
export interface CachedToken {
  accessToken: string
  expiresAt: string
  scopes: string[]
  partnerId: string
  /** Fingerprint of the credentials and URL the token belongs to; a mismatch means "not ours". */
  for: string
}

export interface StoredProfile {
  environment: string
  baseUrl?: string | undefined
  authUrl?: string | undefined
  auth?: StoredAuth | undefined
  token?: CachedToken | undefined
}

export interface ProfileFile {
  currentProfile?: string | undefined
  /**
   * By name. A name is the user's to choose, `__proto__` and `constructor` included: read a
   * profile with storedProfile, never `profiles[name]`, which finds what every object inherits.
   * ProfileStore hands out this record without a prototype, so writing `profiles[name]` is safe.
   */
  profiles: Record<string, StoredProfile>
}

/** Where an effective value came from: `profiles show` prints it, to expose stray env vars. */
export type ValueSource = 'flag' | 'env' | 'file' | 'default'

export interface ResolvedProfile {
  name: string
  environment: string
  kind: EnvironmentKind
  baseUrl: string
  authUrl?: string | undefined
  auth?: StoredAuth | undefined
  /** Whether the profile exists in the profile file (tokens are cached only then). */
  stored: boolean
  sources: Record<'profile' | 'environment' | 'baseUrl' | 'authUrl' | 'credentials', ValueSource>
}

/** Values given on the command line; they win over env vars, which win over the file. */
export interface ProfileOverrides {
  profile?: string | undefined
  environment?: string | undefined
  baseUrl?: string | undefined
}

/**
 * The profile file as ProfileStore.read() would hand it out, read without conf, or undefined
 * wherever the store would do more than read: no file (conf creates one), a file without its
 * `profiles` (conf writes them in), a symbolic link, a file or config dir that the store refuses,
 * or text that is not a JSON object. For the fast path of bin/run.js, which hands anything but
 * the plain case to the full CLI.
 */
export function peekProfileFile(dir: string): ProfileFile | undefined {
  if (process.platform === 'win32' || configDirProblem(dir) !== undefined) return undefined
  const path = join(dir, 'profiles.json')
  const st = lstatSync(path, {throwIfNoEntry: false})
  if (st === undefined || !st.isFile() || (st.mode & 0o077) !== 0) return undefined
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return undefined
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined
  const profiles = (raw as {profiles?: unknown}).profiles
  if (profiles === null || typeof profiles !== 'object' || Array.isArray(profiles)) return undefined
  return profileFile(raw as Record<string, unknown>)
}

/** What a ProfileStore hands out of the file's object: the profiles without a prototype. */
export function profileFile(raw: Record<string, unknown>): ProfileFile {
  // Without a prototype, a profile named `__proto__` is written as a key like any other.
  const profiles: Record<string, StoredProfile> = Object.create(null)
  const stored = raw.profiles
  if (stored !== null && typeof stored === 'object' && !Array.isArray(stored))
    for (const [name, profile] of Object.entries(stored)) profiles[name] = profile as StoredProfile
  const current = raw.currentProfile
  return {currentProfile: typeof current === 'string' ? current : undefined, profiles}
}

/** The profile stored under `name`, or undefined: only the file's own, never what objects inherit. */
export function storedProfile(file: ProfileFile, name: string): StoredProfile | undefined {
  return Object.hasOwn(file.profiles, name) ? file.profiles[name] : undefined
}

/** A name a profile can be saved under: any but the empty one, which no command can name again. */
export function checkProfileName(name: string): string {
  if (name !== '') return name
  throw new PayctlError({
    kind: 'usage',
    code: 'INVALID_PROFILE_NAME',
    message: 'a profile name cannot be empty',
    suggestions: ['Try: payctl profiles list'],
  })
}

/** The error for a profile name the file does not have. */
export function profileNotFound(name: string, file: ProfileFile, from?: string): PayctlError {
  return new PayctlError({
    kind: from ? 'config' : 'usage',
    code: 'PROFILE_NOT_FOUND',
    message: `no profile named "${name}"${from ? ` (from ${from})` : ''}`,
    details: {profiles: Object.keys(file.profiles)},
    suggestions: [`Try: payctl auth login --profile ${name} --env local`, 'Try: payctl profiles list'],
  })
}

/** A stable fingerprint of credentials + URL, to tell whether a cached token is theirs. */
export function credentialFingerprint(auth: StoredAuth, baseUrl: string): string {
  const who = auth.variant === 'A' ? `A|${auth.apiKey}|${auth.partnerId}` : `B|${auth.secretKey}`
  return sha256Hex(`${who}|${baseUrl}`).slice(0, 16)
}

/**
 * Credentials from `PAYCTL_*` variables, or undefined when none is set. They replace the file's
 * wholesale (mixing an env key with a file secret is how the wrong account gets used), so a
 * partial set is an error rather than something quietly completed from the file.
 */
export function credentialsFromEnv(env: NodeJS.ProcessEnv): StoredAuth | undefined {
  const {PAYCTL_API_KEY: apiKey, PAYCTL_API_SECRET: apiSecret, PAYCTL_PARTNER_ID: partnerId} = env
  if (env.PAYCTL_SECRET_KEY) return {variant: 'B', secretKey: env.PAYCTL_SECRET_KEY, partnerId}
  if (apiKey && !apiSecret && /^(test|live)_/.test(apiKey))
    return {variant: 'B', secretKey: apiKey, partnerId}
  if (!apiKey && !apiSecret && !partnerId) return undefined
  if (apiKey && apiSecret && partnerId) return {variant: 'A', apiKey, apiSecret, partnerId}
  const missing = [
    ['PAYCTL_API_KEY', apiKey],
    ['PAYCTL_API_SECRET', apiSecret],
    ['PAYCTL_PARTNER_ID', partnerId],
  ].filter(([, v]) => !v)
  throw new PayctlError({
    kind: 'config',
    code: 'ENV_CREDENTIALS_INCOMPLETE',
    message: `partner credentials from the environment need all of PAYCTL_API_KEY, PAYCTL_API_SECRET and PAYCTL_PARTNER_ID; ${missing.map(([n]) => n).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
    suggestions: ['Set the missing variables, or unset the others to use the profile file.'],
  })
}

/** A base URL as payctl stores it: http(s), no trailing slash, no `/v1` (added per request). */
export function normaliseBaseUrl(value: string, what = 'base URL'): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new PayctlError({
      kind: 'usage',
      code: 'INVALID_URL',
      message: `the ${what} "${value}" is not a URL (e.g. https://api.example.test)`,
    })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PayctlError({
      kind: 'usage',
      code: 'INVALID_URL',
      message: `the ${what} must be http or https, got "${value}"`,
    })
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '').replace(/\/v1$/, '')
}

const KNOWN_ENVIRONMENTS = new Set(['local', 'sandbox', 'production'])

/** Work out the profile a command acts on, and where each value came from. */
// Long: one precedence (flag, environment, file, default) spelled out value by value, with its source.
export function resolveProfile(
  file: ProfileFile,
  overrides: ProfileOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedProfile {
  let profileSource: ValueSource = 'default'
  let name = 'default'
  if (overrides.profile) [name, profileSource] = [overrides.profile, 'flag']
  else if (env.PAYCTL_PROFILE) [name, profileSource] = [env.PAYCTL_PROFILE, 'env']
  else if (file.currentProfile) [name, profileSource] = [file.currentProfile, 'file']
  else if (storedProfile(file, 'local')) name = 'local'

  const stored = storedProfile(file, name)
  if (!stored && profileSource !== 'default' && !env.PAYCTL_BASE_URL && !envHasCredentials(env)) {
    const from =
      profileSource === 'flag' ? '--profile' : profileSource === 'env' ? 'PAYCTL_PROFILE' : 'the profile file'
    throw profileNotFound(name, file, from)
  }

  const pick = <T>(flag: T | undefined, envValue: T | undefined, fileValue: T | undefined, fallback?: T) => {
    if (flag !== undefined && flag !== '') return {value: flag, source: 'flag' as const}
    if (envValue !== undefined && envValue !== '') return {value: envValue, source: 'env' as const}
    if (fileValue !== undefined) return {value: fileValue, source: 'file' as const}
    return {value: fallback, source: 'default' as const}
  }

  const envAuth = credentialsFromEnv(env)
  const environment = pick(
    overrides.environment,
    env.PAYCTL_ENV,
    stored?.environment,
    KNOWN_ENVIRONMENTS.has(name)
      ? name
      : unnamedEnvironment(
          overrides.baseUrl || env.PAYCTL_BASE_URL || stored?.baseUrl,
          envAuth ?? stored?.auth,
        ),
  )
  const envName = environment.value as string
  const baseUrl = pick(
    overrides.baseUrl,
    env.PAYCTL_BASE_URL,
    stored?.baseUrl,
    envName === 'local' ? DEFAULT_LOCAL_URL : undefined,
  )
  if (!baseUrl.value) {
    throw new PayctlError({
      kind: 'config',
      code: 'BASE_URL_MISSING',
      message: `no base URL for environment "${envName}" (profile "${name}")`,
      suggestions: [`Try: payctl auth login --profile ${name} --env ${envName} --base-url <url>`],
    })
  }
  const authUrl = pick(undefined, env.PAYCTL_AUTH_URL, stored?.authUrl)
  const url = normaliseBaseUrl(baseUrl.value as string)
  return {
    name,
    environment: envName,
    kind: environmentKind(envName, url),
    baseUrl: url,
    authUrl: authUrl.value === undefined ? undefined : normaliseBaseUrl(authUrl.value, 'auth URL'),
    auth: envAuth ?? stored?.auth,
    stored: stored !== undefined,
    sources: {
      profile: profileSource,
      environment: environment.source,
      baseUrl: baseUrl.source,
      authUrl: authUrl.source,
      credentials: envAuth ? 'env' : stored?.auth ? 'file' : 'default',
    },
  }
}

/**
 * The environment of a profile nobody named one for (CI with only PAYCTL_* variables): local at a
 * loopback URL or none; elsewhere production for a live key and sandbox otherwise, so that a live
 * key gets production's safeguards and a test key is never taken for local.
 */
export function unnamedEnvironment(baseUrl: string | undefined, auth: StoredAuth | undefined): string {
  if (baseUrl === undefined || isLocalUrl(baseUrl)) return 'local'
  const key = auth === undefined ? '' : auth.variant === 'A' ? auth.apiKey : auth.secretKey
  return /^(?:pk_|sk_)?live_/.test(key) ? 'production' : 'sandbox'
}

function envHasCredentials(env: NodeJS.ProcessEnv): boolean {
  return Boolean(
    env.PAYCTL_SECRET_KEY || env.PAYCTL_API_KEY || env.PAYCTL_API_SECRET || env.PAYCTL_PARTNER_ID,
  )
}
