import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {formatDuration} from '../../cli/duration.js'
import {readState} from '../../cli/local-sandbox/sandbox-process.js'
import type {IOStreams} from '../../cli/runtime/io.js'
import {
  assertReachable,
  credentialsFromEnv,
  DEFAULT_LOCAL_URL,
  login,
  normaliseBaseUrl,
  type SessionInfo,
  type StoredAuth,
  storedProfile,
  usageError,
} from '../../core/index.js'

export default class AuthLogin extends BaseCommand<typeof AuthLogin> {
  static override summary = 'log in to an environment and save the credentials as a profile'
  static override description =
    `Variant A: partner credentials (--api-key, --api-secret, --partner-id) are exchanged for an access token, cached and refreshed automatically.
Variant B: a secret API key (--secret-key test_… or live_…) is sent as the Bearer credential.
Give "-" as --api-secret or --secret-key to read it from stdin. Without credential flags, login uses PAYCTL_* variables, else the profile's stored credentials (the local sandbox writes them), else prompts in a terminal.
The profile is named after the environment unless --profile says otherwise, and becomes the current profile.
The order: flags, then PAYCTL_* variables, then what the profile already holds, then prompts (in a terminal).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --env local',
    '<%= config.bin %> <%= command.id %> --env sandbox --base-url https://sandbox.example.test --api-key pk_test_123 --partner-id partner_1 --api-secret -',
    'echo "$SECRET_KEY" | <%= config.bin %> <%= command.id %> --env local --secret-key -',
  ]
  static override flags = {
    env: Flags.string({char: 'e', summary: 'environment: local, sandbox, production or a name of your own'}),
    'base-url': Flags.string({summary: 'base address of the service, without /v1'}),
    'auth-url': Flags.string({
      summary: 'separate base address for auth and earlier-variant round-up calls, if the service has one',
    }),
    'api-key': Flags.string({summary: 'Variant A: API key (public identifier)'}),
    'api-secret': Flags.string({summary: 'Variant A: API secret ("-" reads it from stdin)'}),
    'partner-id': Flags.string({summary: 'Variant A: partner id'}),
    'secret-key': Flags.string({
      summary: 'Variant B: secret API key, test_… or live_… ("-" reads it from stdin)',
    }),
  }

  async run(): Promise<SessionInfo> {
    const f = this.flags
    const file = this.store.read()
    const environment =
      f.env ??
      (this.interactive ? await this.questions.ask('env', 'Environment', {default: 'local'}) : 'local')
    const name = f.profile ?? environment
    const existing = storedProfile(file, name)
    const sandbox = environment === 'local' ? readState(this.runtime.configDir) : undefined
    const localUrl = sandbox?.url ?? storedProfile(file, 'local')?.baseUrl ?? DEFAULT_LOCAL_URL
    const given = f['base-url'] ?? this.env.PAYCTL_BASE_URL ?? existing?.baseUrl
    const baseUrl = normaliseBaseUrl(
      given ??
        (environment !== 'local'
          ? await this.questions.ask('base-url', 'Base URL')
          : this.interactive
            ? await this.questions.ask('base-url', 'Base URL', {default: localUrl})
            : localUrl),
    )
    this.banner(environment, name, baseUrl)
    // Once, before any secret is asked for: a wrong address is better said now than after typing one.
    if (this.interactive)
      await this.out.spin(`Reaching ${baseUrl}`, () => assertReachable(baseUrl, this.transportOptions))
    // After a logout the profile has no credentials; the running sandbox at that URL still has its own.
    const sandboxAuth: StoredAuth | undefined =
      sandbox?.credentials && normaliseBaseUrl(sandbox.url) === baseUrl
        ? {variant: 'A', ...sandbox.credentials}
        : undefined
    const auth = await this.credentials(existing?.auth ?? sandboxAuth)
    const session = await this.out.spin(`Logging in to ${environment}`, () =>
      login(
        this.store,
        {name, environment, baseUrl, authUrl: f['auth-url'] ?? existing?.authUrl, auth},
        this.transportOptions,
      ),
    )
    const expiry = session.expiresAt
      ? `, token expires in ${formatDuration((Date.parse(session.expiresAt) - this.runtime.clock.now()) / 1000)}`
      : ''
    this.out.log(
      `✓ Logged in to ${environment} (${session.baseUrl}) as ${session.partnerId ?? 'API key'}, profile "${name}"${expiry}`,
    )
    return session
  }

  /** Credentials from flags, else PAYCTL_* env vars, else the profile's stored ones, else prompts. */
  async credentials(stored: StoredAuth | undefined): Promise<StoredAuth> {
    const f = this.flags
    const readSecret = (value: string | undefined) => secretFrom(value, this.io)
    const secretKey = readSecret(f['secret-key'])
    if (secretKey !== undefined) return {variant: 'B', secretKey, partnerId: f['partner-id']}
    if (f['api-key'] && !f['api-secret'] && /^(test|live)_/.test(f['api-key'])) {
      return {variant: 'B', secretKey: f['api-key'], partnerId: f['partner-id']}
    }
    if (f['api-key'] || f['api-secret'] || f['partner-id']) {
      const fallback = stored?.variant === 'A' ? stored : undefined
      return {
        variant: 'A',
        apiKey: f['api-key'] ?? fallback?.apiKey ?? (await this.questions.ask('api-key', 'API key')),
        partnerId:
          f['partner-id'] ?? fallback?.partnerId ?? (await this.questions.ask('partner-id', 'Partner id')),
        apiSecret:
          readSecret(f['api-secret']) ??
          fallback?.apiSecret ??
          (await this.questions.ask('api-secret', 'API secret', {secret: true})),
      }
    }
    const fromEnv = credentialsFromEnv(this.env)
    if (fromEnv) return fromEnv
    if (stored) return stored
    if (!this.interactive) {
      throw usageError(
        'no credentials: pass --api-key, --api-secret and --partner-id (Variant A) or --secret-key (Variant B)',
        'MISSING_FLAG',
        {flags: ['--api-key', '--api-secret', '--partner-id', '--secret-key']},
      )
    }
    const variant = await this.questions.choose('secret-key', 'How do you authenticate?', [
      {name: 'Partner credentials (API key, secret, partner id)', value: 'A'},
      {name: 'Secret API key (test_… / live_…)', value: 'B'},
    ])
    if (variant === 'B')
      return {variant: 'B', secretKey: await this.questions.ask('secret-key', 'Secret key', {secret: true})}
    return {
      variant: 'A',
      apiKey: await this.questions.ask('api-key', 'API key'),
      partnerId: await this.questions.ask('partner-id', 'Partner id'),
      apiSecret: await this.questions.ask('api-secret', 'API secret', {secret: true}),
    }
  }
}

/** A secret flag's value, read from stdin when it is `-`. */
function secretFrom(value: string | undefined, io: IOStreams): string | undefined {
  if (value !== '-') return value
  const text = io.in.readAll().toString('utf8').trim()
  if (!text) throw usageError('expected the secret on stdin, got nothing', 'MISSING_FLAG')
  return text
}
