import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {parseDuration} from '../../cli/duration.js'
import {SCOPES_B, type ScopeB} from '../../contract/index.js'
import {usageError} from '../../core/index.js'

export default class AuthToken extends BaseCommand<typeof AuthToken> {
  static override summary = 'print an access token for scripts (nothing else on stdout)'
  static override description =
    `Partner-credential profiles print their cached access token, renewed if needed.
API-key profiles mint a short-lived JWT: --scopes narrows it (default: every scope) and --ttl sets its lifetime (default 1h, at most 24h). The key itself is never printed.`
  static override examples = [
    'curl -H "Authorization: Bearer $(<%= config.bin %> <%= command.id %>)" http://127.0.0.1:4010/v1/wallets',
    '<%= config.bin %> <%= command.id %> --scopes payments:read,balance:read --ttl 15m',
  ]
  static override flags = {
    scopes: Flags.string({summary: `API-key profiles: comma-separated scopes (${SCOPES_B.join(', ')})`}),
    ttl: Flags.string({summary: 'API-key profiles: lifetime of the minted token, e.g. 15m, 2h (default 1h)'}),
  }

  async run(): Promise<{token: string; expiresAt?: string | undefined; scopes?: string[] | undefined}> {
    const f = this.flags
    const auth = this.profile.auth
    if (auth?.variant !== 'B') {
      if (f.scopes || f.ttl)
        throw usageError('--scopes and --ttl apply to API-key (Variant B) profiles', 'USAGE')
      const token = await this.api.tokens.bearer()
      const cached = this.api.tokens.cached()
      this.out.log(token)
      return {token, expiresAt: cached?.expiresAt, scopes: cached?.scopes}
    }
    const scopes = f.scopes
      ? f.scopes
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [...SCOPES_B]
    const known = (s: string): s is ScopeB => (SCOPES_B as readonly string[]).includes(s)
    const unknown = scopes.filter((s) => !known(s))
    if (unknown.length > 0) {
      throw usageError(
        `unknown scope ${unknown.join(', ')}; choose from ${SCOPES_B.join(', ')}`,
        'INVALID_SCOPE',
      )
    }
    const expiresIn = f.ttl ? parseDuration(f.ttl, 'ttl') : 3600
    if (expiresIn < 60 || expiresIn > 86400)
      throw usageError('--ttl must be between 1m and 24h', 'INVALID_DURATION')
    const minted = await this.api.call('mintJwt', {
      body: {scopes: scopes.filter(known), expires_in: expiresIn},
    })
    this.out.log(minted.token)
    return {token: minted.token, expiresAt: minted.expires_at, scopes: minted.scopes}
  }
}
