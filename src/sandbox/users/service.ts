import type {z} from 'zod'
import type {CreateUserInput, ListUsersQuerySchema, User, UserList} from '../../contract/users.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {PagedList} from '../http/pagination.js'
import {newId} from '../storage/ids.js'
import type {UserRow} from '../tenancy/tenants.js'

type ListUsersQuery = z.output<typeof ListUsersQuerySchema>

function toUser(row: Omit<UserRow, 'seq'>): User {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    partner_id: row.partner_id,
    external_id: row.external_id,
    created_at: row.created_at,
  }
}

/** A LIKE pattern for values that contain `text`, its own `%`, `_` and backslash taken as they are. */
const containing = (text: string | undefined) =>
  text === undefined ? undefined : `%${text.replace(/[\\%_]/g, '\\$&')}%`

/** The users of each partner (kept in the tenants' table, which every feature checks against). */
export class UserService {
  readonly #list: PagedList<UserRow, 'email' | 'external_id' | 'name' | 'search'>

  constructor(private readonly deps: Pick<SandboxContext, 'tenants' | 'clock' | 'database' | 'cursors'>) {
    this.#list = new PagedList(deps.database, deps.cursors, {
      name: 'users',
      table: 'users',
      order: 'oldest first',
      filters: {
        email: 'email = ? COLLATE NOCASE',
        external_id: 'external_id = ?',
        name: "first_name || ' ' || last_name LIKE ? ESCAPE '\\'",
        // The rule of contract/users.ts userMatchesSearch: the email or the name contains the text.
        search: "(email LIKE ? ESCAPE '\\' OR first_name || ' ' || last_name LIKE ? ESCAPE '\\')",
      },
    })
  }

  /**
   * A page of the partner's users, oldest first: those with an email (in any case), an external id,
   * a name containing the text given, or an email or name containing the search (in any case).
   */
  list(partnerId: string, query: ListUsersQuery): UserList {
    const name = containing(query.name)
    const search = containing(query.search)
    const {rows, hasMore, nextCursor} = this.#list.page(partnerId, {...query, name, search}, query)
    return {users: rows.map(toUser), hasMore, nextCursor}
  }

  /** A new user of the partner; a body naming another partner is refused. */
  create(partnerId: string, body: CreateUserInput): User {
    if (body.partner_id !== undefined && body.partner_id !== partnerId) {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', 'Cannot create a user for another partner', {
        field: 'partner_id',
        value: body.partner_id,
      })
    }
    const row: Omit<UserRow, 'seq'> = {
      id: newId.user(),
      partner_id: partnerId,
      email: body.email,
      first_name: body.first_name,
      last_name: body.last_name,
      external_id: body.external_id ?? null,
      created_at: this.deps.clock.now(partnerId).toISOString(),
    }
    this.deps.tenants.add(row)
    return toUser(row)
  }

  /** The partner's user `id`: NOT_FOUND when there is none, or it is another partner's. */
  get(partnerId: string, id: string): User {
    return toUser(this.deps.tenants.requireUser(partnerId, id))
  }
}
