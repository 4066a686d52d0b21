import type {CreateUserInput, User} from '../../contract/users.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {newId} from '../ids.js'
import type {UserRow} from '../tenants.js'

function toUser(row: UserRow): User {
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

/** The users of each partner (kept in the tenants' table, which every feature checks against). */
export class UserService {
  constructor(private readonly deps: Pick<SandboxContext, 'tenants' | 'clock'>) {}

  /** A new user of the partner; a body naming another partner is refused. */
  create(partnerId: string, body: CreateUserInput): User {
    if (body.partner_id !== undefined && body.partner_id !== partnerId) {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', 'Cannot create a user for another partner', {
        field: 'partner_id',
        value: body.partner_id,
      })
    }
    const row: UserRow = {
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
