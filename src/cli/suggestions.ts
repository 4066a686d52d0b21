import {distance} from 'fastest-levenshtein'
import {authCodes} from '../contract/index.js'
import type {PayctlError, ResolvedProfile} from '../core/index.js'
import {readState} from './local-sandbox/sandbox-process.js'

/** Errors that logging in mends: the service's refused credentials, and payctl's own missing ones. */
const AUTH_CODES = new Set<string>([
  ...authCodes((e) => e.refuses === 'credentials'),
  'NOT_LOGGED_IN',
  'CREDENTIALS_INCOMPLETE',
])

const CREDENTIAL_VARIABLES = 'PAYCTL_SECRET_KEY, PAYCTL_API_KEY, PAYCTL_API_SECRET, PAYCTL_PARTNER_ID'

/**
 * Add commands a user can paste to fix the error, where the core did not already, and drop any
 * that name a flag this command does not have (`flags`: its flag names, without dashes).
 */
export function addSuggestions(
  err: PayctlError,
  profile: ResolvedProfile | undefined,
  flags: ReadonlySet<string> | undefined,
  configDir: string,
): void {
  if (flags) keepOwnFlags(err, flags)
  if (flags) suggestFlags(err, flags)
  if (
    (err.code === 'TEST_CREDENTIAL_IN_PRODUCTION' || err.code === 'LIVE_KEY_OUTSIDE_PRODUCTION') &&
    profile?.sources.credentials === 'env'
  ) {
    // Logging in would change nothing: the variables win over the profile file.
    err.suggestions = [
      `The credentials come from the environment (${CREDENTIAL_VARIABLES}): set ones that belong to ${profile.environment}, or unset them to use the profile's.`,
    ]
    return
  }
  const env = profile?.environment ?? 'local'
  const profileFlag = profile && profile.name !== env ? ` --profile ${profile.name}` : ''
  // `auth login --env local` reuses the credentials a sandbox wrote; where none did, it could only
  // fail for want of them: starting the sandbox writes the profile.
  // (A profile in the file was logged in to before: `auth login` takes its credentials again.)
  const local = profile === undefined || (profile.kind === 'local' && !profile.stored)
  if (AUTH_CODES.has(err.code) && local && !profile?.auth && !readState(configDir)?.credentials) {
    const chosen = profile && profile.sources.profile !== 'default' && profile.name !== 'local'
    const named = chosen ? ` --profile ${profile.name}` : ''
    // Two ways in: the local sandbox, or a service elsewhere (login asks for its address).
    err.suggestions = [
      `Try: payctl sandbox start${named}   (a local sandbox, which logs you in)`,
      `Or: payctl auth login${named}   (a service elsewhere: it asks for the URL and credentials)`,
    ]
    return
  }
  if (err.suggestions.length > 0) return
  const s: string[] = []
  if (AUTH_CODES.has(err.code)) s.push(`Try: payctl auth login --env ${env}${profileFlag}`)
  else if (err.code === 'INSUFFICIENT_SCOPE' || err.code === 'insufficient_permissions')
    s.push('Try: payctl auth status (to see the scopes in effect)')
  else if (err.code === 'NETWORK_ERROR' && profile?.kind === 'local') s.push('Try: payctl sandbox start')
  else if (err.code === 'WALLET_EXISTS' && typeof err.details?.existingWalletId === 'string')
    s.push(`Try: payctl wallets get ${err.details.existingWalletId}`)
  else if (err.code === 'NOT_FOUND' && err.details?.resource === 'user')
    s.push('Try: payctl users list --search TEXT   (a part of their email or name, in any case)')
  else if (err.code === 'INVALID_USER_ID')
    s.push('Try: payctl users create --email … --first-name … --last-name … (then use its id)')
  else if (err.code === 'RATE_LIMIT_EXCEEDED' || err.code === 'RATE_LIMITED')
    s.push('Wait a minute and retry, or lower the request rate.')
  else if (err.code === 'INVALID_DESTINATION_ACCOUNT') s.push(...destinationHints(err, env))
  err.suggestions.push(...s)
}

/**
 * What a round-up destination may be, as commands: a bank account the user connected (USD only),
 * or a wallet of another user in the round-up currency. A second wallet of the user, the first
 * thing a person tries, cannot be made (one wallet per currency). The sandbox names the user and
 * the currency in the error's details; against a service that does not, the hints say USER.
 */
function destinationHints(err: PayctlError, environment: string): string[] {
  const user = typeof err.details?.user_id === 'string' ? err.details.user_id : 'USER'
  const currency = typeof err.details?.currency === 'string' ? err.details.currency : undefined
  const wallet = `a ${currency ?? 'round-up currency'} wallet of another user, such as one kept for savings (not a second wallet of ${user}'s: a user has one per currency)`
  if (currency !== undefined && currency !== 'USD')
    return [`Give ${wallet}; a bank account takes USD round-ups only.`]
  // Finishing the link at once is the sandbox's; elsewhere the user connects one on the bank's screen.
  const bank =
    environment === 'production'
      ? `Try: payctl accounts list ${user}   (a connected bank account's ba_… id is a destination, for USD round-ups)`
      : `Try: payctl accounts connect ${user} --complete --jq .id   (connects a bank account and prints its ba_… id: a destination for USD round-ups)`
  return [bank, `Or give ${wallet}.`]
}

/**
 * A suggestion to repeat "the same command" with a flag it does not take (the idempotency key of a
 * token exchange behind a GET, say) cannot be followed: it becomes a plain "run it again", which is
 * safe for such a command, since without the flag it creates nothing.
 */
function keepOwnFlags(err: PayctlError, flags: ReadonlySet<string>): void {
  err.suggestions = err.suggestions.map((s) => {
    if (!/the same command/i.test(s)) return s
    const named = [...s.matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!)
    if (named.every((f) => flags.has(f))) return s
    return 'Run the same command again.'
  })
}

/** For each flag oclif did not know, the closest the command has: `--usr` is `--user`. */
function suggestFlags(err: PayctlError, flags: ReadonlySet<string>): void {
  const unknown = (err.cause as {name?: string; flags?: unknown} | undefined)?.flags
  if (!Array.isArray(unknown)) return
  for (const flag of unknown) {
    const typed = String(flag).replace(/^-+/, '').split('=')[0] ?? ''
    const match = closestName(typed, [...flags], Math.max(2, Math.ceil(typed.length / 3)))
    if (match !== undefined) err.suggestions.push(`Did you mean --${match}?`)
  }
}

/**
 * The name closest to what was typed, as a person means it: a name the typed word begins (`stat`
 * → `status`, not the nearer `start`) ranks first, the shortest such; then the fewest edits. None
 * when even the closest needs more than `maxEdits` (a guess that far off only misleads).
 */
export function closestName(
  typed: string,
  names: readonly string[],
  maxEdits = Number.POSITIVE_INFINITY,
): string | undefined {
  const begun = names.filter((n) => n.startsWith(typed) && n !== typed)
  if (typed !== '' && begun.length > 0) return begun.reduce((a, b) => (b.length < a.length ? b : a))
  let best: {name: string; edits: number} | undefined
  for (const name of names) {
    const edits = distance(typed, name)
    if (!best || edits < best.edits || (edits === best.edits && name.length < best.name.length))
      best = {name, edits}
  }
  return best && best.edits <= maxEdits ? best.name : undefined
}
