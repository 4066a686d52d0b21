import type {PayctlError, ResolvedProfile} from '../core/index.js'

const AUTH_CODES = new Set([
  'INVALID_CREDENTIALS',
  'TOKEN_EXPIRED',
  'TOKEN_INVALID',
  'INVALID_API_KEY',
  'invalid_api_key',
  'expired_token',
  'missing_authorization',
  'NOT_LOGGED_IN',
  'CREDENTIALS_INCOMPLETE',
])

/** Add commands a user can paste to fix the error, where the core did not already. */
export function addSuggestions(err: PayctlError, profile: ResolvedProfile | undefined): void {
  if (err.suggestions.length > 0) return
  const env = profile?.environment ?? 'local'
  const login = `Try: payctl auth login --env ${env}${profile && profile.name !== env ? ` --profile ${profile.name}` : ''}`
  const s: string[] = []
  if (AUTH_CODES.has(err.code)) s.push(login)
  else if (err.code === 'INSUFFICIENT_SCOPE' || err.code === 'insufficient_permissions')
    s.push('Try: payctl auth status (to see the scopes in effect)')
  else if (err.code === 'NETWORK_ERROR' && profile?.kind === 'local') s.push('Try: payctl sandbox start')
  else if (err.code === 'WALLET_EXISTS' && typeof err.details?.existingWalletId === 'string')
    s.push(`Try: payctl wallets get ${err.details.existingWalletId}`)
  else if (err.code === 'INVALID_USER_ID')
    s.push('Try: payctl users create --email … --first-name … --last-name … (then use its id)')
  else if (err.code === 'RATE_LIMIT_EXCEEDED' || err.code === 'RATE_LIMITED')
    s.push('Wait a minute and retry, or lower the request rate.')
  err.suggestions.push(...s)
}
