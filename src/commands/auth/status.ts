import {BaseCommand} from '../../cli/base-command.js'
import {formatDuration} from '../../cli/duration.js'
import {localSession, PayctlError, type SessionInfo, status} from '../../core/index.js'

export default class AuthStatus extends BaseCommand<typeof AuthStatus> {
  static override summary = 'show who you are logged in as, and check that the credentials work'
  static override description =
    'Exits 0 only when the credentials are accepted by the service, so scripts can test it: `payctl auth status >/dev/null || payctl auth login`. Never prints a secret.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile ci --json',
  ]

  async run(): Promise<SessionInfo & {valid: boolean; credentialsFrom: string}> {
    const profile = this.profile
    let info: SessionInfo
    let failure: PayctlError | undefined
    try {
      info = await this.out.spin('Checking credentials', () => status(this.api))
    } catch (err) {
      if (!(err instanceof PayctlError)) throw err
      failure = err
      info = localSession(this.api)
    }
    const left = info.expiresAt ? (Date.parse(info.expiresAt) - this.runtime.clock.now()) / 1000 : undefined
    this.out.card([
      ['profile', info.profile],
      [
        'environment',
        profile.kind === info.environment ? info.environment : `${info.environment} (${profile.kind})`,
      ],
      ['base url', info.baseUrl],
      [
        'auth',
        info.variant === 'A' ? 'partner credentials → access token (Variant A)' : 'API key (Variant B)',
      ],
      ['partner', info.partnerId],
      ['api key', info.apiKey],
      ['credentials from', profile.sources.credentials],
      ['scopes', info.scopes?.join(' ')],
      ['token expires', left === undefined ? undefined : `in ${formatDuration(left)} (${info.expiresAt})`],
      ['status', failure ? `✗ not working (${failure.code})` : '✓ credentials work'],
    ])
    if (failure) throw failure
    return {...info, valid: true, credentialsFrom: profile.sources.credentials}
  }
}
