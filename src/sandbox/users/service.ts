import type {CreateUserInput, User} from '../../contract/users.js'
import type {SandboxContext} from '../context.js'
import type {Database} from '../database.js'
import {ApiError} from '../errors.js'
import {newId} from '../ids.js'

interface UserRow {
  id: string
  partner_id: string
  email: string
  first_name: string
  last_name: string
  external_id: string | null
  created_at: string
}

function statements(database: Database) {
  return {
    insert: database.prepare(
      'INSERT INTO users (id, partner_id, email, first_name, last_name, external_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    byId: database.prepare<UserRow>('SELECT * FROM users WHERE id = ?'),
  }
}

/** The users of each partner, in the `users` table. */
export class UserService {
  private readonly q: ReturnType<typeof statements>

  constructor(private readonly ctx: SandboxContext) {
    this.q = statements(ctx.database)
  }

  /** A new user of the partner; a body naming another partner is refused. */
  create(partnerId: string, body: CreateUserInput): User {
    if (body.partner_id !== undefined && body.partner_id !== partnerId) {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', 'Cannot create a user for another partner', {
        field: 'partner_id',
        value: body.partner_id,
      })
    }
    const user: User = {
      id: newId.user(),
      email: body.email,
      first_name: body.first_name,
      last_name: body.last_name,
      partner_id: partnerId,
      external_id: body.external_id ?? null,
      created_at: this.ctx.clock.now().toISOString(),
    }
    this.q.insert.run(
      user.id,
      partnerId,
      user.email,
      user.first_name,
      user.last_name,
      user.external_id,
      user.created_at,
    )
    return user
  }

  /** The partner's user `id`: NOT_FOUND when there is none, or it is another partner's. */
  get(partnerId: string, id: string): User {
    const row = this.q.byId.get(id)
    if (row === undefined || row.partner_id !== partnerId) {
      throw new ApiError('NOT_FOUND', `No user ${id}`, {resource: 'user', id})
    }
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
}
