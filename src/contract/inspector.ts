/**
 * The sandbox's browser inspector (docs/inspector.md), a sandbox extension: where it is served,
 * and what its pages read. Shared by the sandbox that serves it, the browser bundle that draws it
 * and the CLI that prints its address; type-only beyond the constants, so the bundle stays small.
 */

/** Where the inspector lives, below the sandbox's base address. */
export const INSPECTOR_PATH = '/_sandbox/ui'
/** Its data, read by its pages with the session cookie; never a route of the API. */
export const INSPECTOR_API = `${INSPECTOR_PATH}/api`
/** The session cookie: HttpOnly, SameSite=Strict, scoped to INSPECTOR_PATH. */
export const INSPECTOR_COOKIE = 'payctl_inspector'
/**
 * Where a partner's client mints a one-time sign-in link (`payctl sandbox ui`), with the
 * credentials of sandbox control routes; POST, from this machine only.
 */
export const INSPECTOR_LINKS = `${INSPECTOR_PATH}/links`
/** Where a browser follows one: `?token=…`, once, within its minute, from this machine only. */
export const INSPECTOR_LINK = `${INSPECTOR_PATH}/link`

/** A minted sign-in link: the URL to open, and until when it may be. */
export interface InspectorLink {
  url: string
  expiresAt: string
}

/** The header a change (resend, advance, sign out) carries its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token'

/**
 * The read operations a signed-in page may run, by operation id: the same operations that serve
 * the API, run in the sandbox's process for the signed-in partner.
 */
export const INSPECTOR_READS = [
  'getUser',
  'listUsers',
  'getWallet',
  'listWallets',
  'listLedgerEntries',
  'getTransaction',
  'listTransactions',
  'getEvent',
  'listEvents',
  'listRequestLog',
  'listBnplPayments',
  'sandboxClock',
] as const
export type InspectorRead = (typeof INSPECTOR_READS)[number]

/** Who is signed in, and the token their changes carry. */
export interface InspectorSession {
  partnerId: string
  name: string
  csrfToken: string
}

/** Where a search leads: the page of the one record it names, or the users an email matched. */
export type SearchResult =
  | {kind: 'found'; path: string}
  | {kind: 'users'; users: {id: string; email: string; name: string}[]}
  | {kind: 'none'; message: string}

/**
 * One page of a user's timeline, newest first, and where the next one starts. Its lines are the
 * contract's TimelineLine (timeline.ts); named here as a parameter, so that this file imports
 * nothing and the browser bundle reads it without the schemas.
 */
export interface TimelinePage<Line> {
  lines: Line[]
  nextCursor: string | null
}

/** What the live stream says: something of the partner's changed (an event recorded, a change answered). */
export interface ChangeNotice {
  /** What changed, where known: the ids an event names, or the request's path. */
  about: string[]
}
