import {type User, type UserList, userMatchesSearch} from '../contract/users.js'
import type {PayctlClient} from './client.js'
import {PayctlError} from './errors.js'

/**
 * Finding a customer when a ticket names them by email or name, not by id: through GET /v1/users,
 * a sandbox extension (the platform's interface shows no way to find a user but by id).
 */

/** What `users list` narrows the partner's users to. */
export interface UserFilters {
  email?: string | undefined
  externalId?: string | undefined
  name?: string | undefined
  /** A part of an email or a name, in any case (contract/users.ts userMatchesSearch). */
  search?: string | undefined
}

/** Users asked for at once, looking for matches, from a service that does not search. */
const PAGE = 100

/** Whether the service refused the `search` filter as a field it does not know. */
function refusedSearch(err: unknown): boolean {
  if (!(err instanceof PayctlError) || err.status !== 400) return false
  const issues = Array.isArray(err.details?.issues) ? (err.details.issues as {path?: unknown}[]) : []
  return err.details?.field === 'search' || issues.some((i) => i?.path === 'search')
}

/**
 * A page of the partner's users that pass `filters`, oldest first. The search is the sandbox's;
 * from a service that lists users without it (it refuses the filter, or ignores it and answers
 * users it does not match) payctl reads the pages itself and keeps the matches, page after page
 * until one holds a match: the same answer, only slower. `onLocalSearch` is told when it does.
 */
export async function findUsersPage(
  client: PayctlClient,
  filters: UserFilters,
  page: {cursor?: string | undefined; limit?: number | undefined},
  onLocalSearch?: () => void,
): Promise<UserList> {
  const query = {
    email: filters.email,
    external_id: filters.externalId,
    name: filters.name,
    limit: page.limit,
    cursor: page.cursor,
  }
  const search = filters.search
  if (search === undefined) return client.call('listUsers', {query})
  const matches = (u: User) => userMatchesSearch(u, search)
  let listed: UserList | undefined
  try {
    listed = await client.call('listUsers', {query: {...query, search}})
    if (listed.users.every(matches)) return listed
  } catch (err) {
    if (!refusedSearch(err)) throw err
  }
  onLocalSearch?.()
  for (;;) {
    listed ??= await client.call('listUsers', {query: {...query, limit: page.limit ?? PAGE}})
    const users = listed.users.filter(matches)
    if (users.length > 0 || !listed.hasMore || listed.nextCursor === null) return {...listed, users}
    query.cursor = listed.nextCursor
    listed = undefined
  }
}

/** Whether a user argument is an email rather than an id. */
export const isEmail = (text: string) => /^[^@\s]+@[^@\s]+$/.test(text.trim())

/**
 * The id of the user `text` names: an id as it is, an email as the one user who has it (in any
 * case). An email that names no user, or several, is an error saying which command finds them.
 */
export async function resolveUserId(client: PayctlClient, text: string): Promise<string> {
  if (!isEmail(text)) return text
  const email = text.trim()
  let users: User[]
  try {
    users = (await client.call('listUsers', {query: {email, limit: 2}})).users
  } catch (err) {
    if (err instanceof PayctlError && err.code === 'NOT_OFFERED') {
      throw new PayctlError({
        kind: 'api',
        code: 'NOT_OFFERED',
        message: `${email} is an email, and this service offers no way to find a user by email (GET /v1/users is a payctl sandbox extension): give the user's id (usr_…)`,
        status: err.status,
        cause: err,
      })
    }
    throw err
  }
  if (users.length === 1) return users[0]!.id
  const search = email.split('@', 1)[0]!
  if (users.length === 0) {
    throw new PayctlError({
      kind: 'api',
      code: 'NOT_FOUND',
      message: `No user with the email ${email}`,
      details: {resource: 'user', email},
      suggestions: [
        `Try: payctl users list --search ${search}   (a part of an email or a name, in any case)`,
      ],
    })
  }
  throw new PayctlError({
    kind: 'usage',
    code: 'AMBIGUOUS_USER',
    message: `More than one user has the email ${email}: give the id of the one you mean`,
    details: {email},
    suggestions: [`Try: payctl users list --email ${email}   (each with their id)`],
  })
}
