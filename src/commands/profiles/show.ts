import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {resolveProfile, storedProfile, type ValueSource} from '../../core/index.js'

interface Shown {
  name: string
  environment: string
  kind: string
  baseUrl: string
  authUrl: string | undefined
  auth: string
  apiKey: string | undefined
  partnerId: string | undefined
  secret: 'set' | 'not set'
  tokenExpiresAt: string | undefined
  sources: Record<string, ValueSource>
  file: string
}

export default class ProfilesShow extends BaseCommand<typeof ProfilesShow> {
  static override summary = 'show the effective settings of a profile and where each comes from'
  static override description =
    'Each value is marked flag, env, file or default, so a stray PAYCTL_* variable silently overriding the profile file is visible. Secrets are never shown, only whether one is set.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> staging --json',
  ]
  static override args = {name: Args.string({description: 'profile name (default: the one in effect)'})}

  async run(): Promise<Shown> {
    const file = this.store.read()
    const p = resolveProfile(file, {profile: this.args.name ?? this.flags.profile}, this.env)
    const auth = p.auth
    const token = storedProfile(file, p.name)?.token
    const shown: Shown = {
      name: p.name,
      environment: p.environment,
      kind: p.kind,
      baseUrl: p.baseUrl,
      authUrl: p.authUrl,
      auth: auth
        ? auth.variant === 'A'
          ? 'partner credentials (Variant A)'
          : 'API key (Variant B)'
        : 'none',
      apiKey: auth?.variant === 'A' ? auth.apiKey : undefined,
      partnerId: auth?.partnerId,
      secret: (auth?.variant === 'A' ? auth.apiSecret : auth?.secretKey) ? 'set' : 'not set',
      tokenExpiresAt: token?.expiresAt,
      sources: p.sources,
      file: this.store.path,
    }
    const from = (key: keyof typeof p.sources) => `(${p.sources[key]})`
    this.out.card([
      ['profile', `${shown.name} ${from('profile')}`],
      ['environment', `${shown.environment} [${shown.kind}] ${from('environment')}`],
      ['base url', `${shown.baseUrl} ${from('baseUrl')}`],
      ['auth url', shown.authUrl && `${shown.authUrl} ${from('authUrl')}`],
      ['auth', `${shown.auth} ${from('credentials')}`],
      ['api key', shown.apiKey],
      ['partner', shown.partnerId],
      ['secret', shown.secret],
      ['token expires', shown.tokenExpiresAt],
      ['profile file', shown.file],
    ])
    return shown
  }
}
