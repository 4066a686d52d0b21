import {BaseCommand} from '../../cli/base-command.js'
import {formatDuration} from '../../cli/duration.js'

export default class AuthRefresh extends BaseCommand<typeof AuthRefresh> {
  static override summary = 'exchange the current access token for a new one now'
  static override description =
    'Tokens are refreshed automatically before they expire; this forces it. Applies to partner-credential (Variant A) profiles.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile staging --json',
  ]

  async run(): Promise<{profile: string; expiresAt: string; scopes: string[]}> {
    const token = await this.out.spin('Refreshing token', () => this.api.tokens.refresh())
    const left = (Date.parse(token.expiresAt) - this.runtime.clock.now()) / 1000
    this.out.log(`✓ Token refreshed for profile "${this.profile.name}", expires in ${formatDuration(left)}`)
    return {profile: this.profile.name, expiresAt: token.expiresAt, scopes: token.scopes}
  }
}
