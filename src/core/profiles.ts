import {createHash} from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
  unlinkSync,
} from 'node:fs'
import {join} from 'node:path'
import Conf from 'conf'
import {isLocalUrl} from '../contract/loopback.js'
import {assertConfigDir, configDir, writePrivateFile} from './config-dir.js'
import {DEFAULT_LOCAL_URL, type EnvironmentKind, environmentKind} from './environments.js'
import {PayctlError} from './errors.js'

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

// Reads that fail rather than wait on a FIFO nobody writes.
const READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/** The profile file: one JSON document, mode 0600, every read-modify-write under a lock. */
export class ProfileStore {
  readonly dir: string
  readonly path: string
  #conf: Conf<Record<string, unknown>> | undefined

  constructor(dir: string = configDir()) {
    this.dir = dir
    this.path = join(dir, 'profiles.json')
  }

  read(): ProfileFile {
    return profileFile(this.#load())
  }

  /** Read, change and write the file while holding its lock, so concurrent payctl processes never clobber it. */
  async update<T>(change: (file: ProfileFile) => T | Promise<T>): Promise<T> {
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    // The lock is a folder payctl makes: a symbolic link there is not one, and would be taken for a
    // lock another process holds, for 15 s, on every command.
    const lock = `${this.path}.lock`
    if (lstatSync(lock, {throwIfNoEntry: false})?.isSymbolicLink()) unlinkSync(lock)
    // Loaded here, not up front: only commands that change the file pay for it.
    const {default: lockfile} = await import('proper-lockfile')
    const release = await lockfile
      .lock(this.path, {
        realpath: false,
        stale: 10_000,
        retries: {retries: 100, minTimeout: 20, maxTimeout: 200, factor: 1.5},
      })
      .catch((cause: unknown) => {
        throw new PayctlError({
          kind: 'config',
          code: 'PROFILE_FILE_LOCKED',
          message: `another payctl process has held the profile file ${this.path} for over 15 s`,
          suggestions: [`If no payctl is running, remove the stale lock: rm -r ${lock}`],
          cause,
        })
      })
    try {
      const raw = this.#load()
      const file = profileFile(raw)
      const result = await change(file)
      // Keys this version does not know (a newer payctl's) are kept.
      this.#store().store = {...raw, currentProfile: file.currentProfile, profiles: file.profiles}
      return result
    } finally {
      await release()
    }
  }

  /** The file's top-level object: empty when there is no file. */
  #load(): Record<string, unknown> {
    try {
      return this.#store().store
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err
      // Not the parser's message: it quotes the text around the fault, and the file holds secrets.
      throw new PayctlError({
        kind: 'config',
        code: 'PROFILE_FILE_INVALID',
        message: `the profile file ${this.path} is not valid JSON`,
        suggestions: [
          `Fix it, or move it aside (its profiles are then forgotten): mv ${this.path} ${this.path}.bad`,
        ],
      })
    }
  }

  /** conf, on a profile file that is a regular file of this user's only they can read. */
  #store(): Conf<Record<string, unknown>> {
    if (process.platform !== 'win32') assertConfigDir(this.dir)
    // Made 0700 here, before conf makes it with the umask's mode (0775 under umask 002), which
    // every later command would refuse as writable by others.
    if (this.#conf === undefined) mkdirSync(this.dir, {recursive: true, mode: 0o700})
    this.#ownFile()
    this.#conf ??= new Conf<Record<string, unknown>>({
      cwd: this.dir,
      configName: 'profiles',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      defaults: {profiles: {}},
    })
    return this.#conf
  }

  /**
   * conf writes through a symbolic link (to keep it); payctl keeps credentials only in a file of
   * its own. A link at the profile file is replaced by a copy of what it points to when that is a
   * file of this user's nobody else can read, removed when it points nowhere, and refused
   * otherwise; its target is never changed. A regular file others can read is refused.
   */
  #ownFile(): void {
    const st = lstatSync(this.path, {throwIfNoEntry: false})
    if (st === undefined) return
    if (!st.isSymbolicLink()) {
      this.#check(st, false)
      return
    }
    let fd: number
    try {
      fd = openSync(this.path, READ)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      unlinkSync(this.path) // a link to nothing holds nothing
      return
    }
    let text: string
    try {
      this.#check(fstatSync(fd), true)
      text = readFileSync(fd, 'utf8')
    } finally {
      closeSync(fd)
    }
    writePrivateFile(this.path, text)
  }

  /** Refuse a profile file (or what a link there points to) that others could read or have made. */
  #check(st: Stats, link: boolean): void {
    const mode = st.mode & 0o777
    const posix = process.platform !== 'win32'
    const problem = !st.isFile()
      ? 'which is not a regular file'
      : link && posix && st.uid !== process.getuid?.()
        ? 'which belongs to another user'
        : posix && (mode & 0o077) !== 0
          ? `which other users can read (mode ${mode.toString(8)})`
          : undefined
    if (problem === undefined) return
    if (link) {
      const target = realpathSync(this.path)
      throw new PayctlError({
        kind: 'config',
        code: 'PROFILE_FILE_LINK',
        message: `the profile file ${this.path} is a symbolic link to ${target}, ${problem}; payctl keeps credentials only in a file of yours that nobody else can read`,
        suggestions: [`Try: rm ${this.path} (the link only; ${target} is left as it is)`],
      })
    }
    if (!st.isFile()) {
      throw new PayctlError({
        kind: 'config',
        code: 'PROFILE_FILE_INVALID',
        message: `the profile file ${this.path} is not a regular file`,
        suggestions: [`Move it aside: mv ${this.path} ${this.path}.bad`],
      })
    }
    throw new PayctlError({
      kind: 'config',
      code: 'PROFILE_FILE_PERMISSIONS',
      message: `the profile file ${this.path} is readable by other users (mode ${mode.toString(8)}); it holds credentials`,
      suggestions: [`Try: chmod 600 ${this.path}`],
    })
  }
}

/** What a ProfileStore hands out of the file's object: the profiles without a prototype. */
function profileFile(raw: Record<string, unknown>): ProfileFile {
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

/** Make a profile the current one. */
export function useProfile(store: ProfileStore, name: string): Promise<void> {
  return store.update((file) => {
    if (!storedProfile(file, name)) throw profileNotFound(name, file)
    file.currentProfile = name
  })
}

/** Delete a profile (and its credentials) from the file. */
export function removeProfile(store: ProfileStore, name: string): Promise<void> {
  return store.update((file) => {
    if (!storedProfile(file, name)) throw profileNotFound(name, file)
    delete file.profiles[name]
    if (file.currentProfile === name) file.currentProfile = undefined
  })
}

/** A stable fingerprint of credentials + URL, to tell whether a cached token is theirs. */
export function credentialFingerprint(auth: StoredAuth, baseUrl: string): string {
  const who = auth.variant === 'A' ? `A|${auth.apiKey}|${auth.partnerId}` : `B|${auth.secretKey}`
  return createHash('sha256').update(`${who}|${baseUrl}`).digest('hex').slice(0, 16)
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
function unnamedEnvironment(baseUrl: string | undefined, auth: StoredAuth | undefined): string {
  if (baseUrl === undefined || isLocalUrl(baseUrl)) return 'local'
  const key = auth === undefined ? '' : auth.variant === 'A' ? auth.apiKey : auth.secretKey
  return /^(?:pk_|sk_)?live_/.test(key) ? 'production' : 'sandbox'
}

function envHasCredentials(env: NodeJS.ProcessEnv): boolean {
  return Boolean(
    env.PAYCTL_SECRET_KEY || env.PAYCTL_API_KEY || env.PAYCTL_API_SECRET || env.PAYCTL_PARTNER_ID,
  )
}
