import {endpoints} from '../../contract/endpoints.js'
import {
  CreateUserCamelSchema,
  type CreateUserInput,
  CreateUserSchema,
  type User,
} from '../../contract/resources.js'
import {callerOf, type RouteSpec, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {newId} from '../ids.js'
import {parseInput} from '../validation.js'

const SNAKE_ONLY = ['first_name', 'last_name', 'partner_id', 'external_id']
const CAMEL_ONLY = ['firstName', 'lastName', 'partnerId', 'externalId']

interface UserRow {
  id: string
  partner_id: string
  email: string
  first_name: string
  last_name: string
  external_id: string | null
  created_at: string
}

/** Accept the HTTP form (snake_case) or the SDK form (camelCase), but never a mix of the two. */
function readCreateUser(body: unknown): CreateUserInput {
  const keys = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : []
  const snake = keys.filter((k) => SNAKE_ONLY.includes(k))
  const camel = keys.filter((k) => CAMEL_ONLY.includes(k))
  if (camel.length === 0) return parseInput(CreateUserSchema, body, 'request body')
  if (snake.length > 0) {
    throw new ApiError(
      'VALIDATION_ERROR',
      `Invalid request body: use either snake_case or camelCase field names, not both (${[...snake, ...camel].join(', ')})`,
      {
        field: camel[0],
        issues: [...snake, ...camel].map((path) => ({
          path,
          code: 'mixed_naming',
          message: 'snake_case and camelCase fields mixed',
        })),
      },
    )
  }
  const c = parseInput(CreateUserCamelSchema, body, 'request body')
  return {
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    partner_id: c.partnerId,
    external_id: c.externalId,
  }
}

export function userRoutes(ctx: SandboxContext): RouteSpec[] {
  const {db} = ctx.database
  const insert = db.prepare(
    'INSERT INTO users (id, partner_id, email, first_name, last_name, external_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )
  const byId = db.prepare('SELECT * FROM users WHERE id = ?')

  return [
    {
      endpoint: endpoints.createUser,
      run(input): User {
        const caller = callerOf(input)
        const body = readCreateUser(input.body)
        const partnerId = caller.partner.partnerId
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
          created_at: ctx.clock.now().toISOString(),
        }
        insert.run(
          user.id,
          partnerId,
          user.email,
          user.first_name,
          user.last_name,
          user.external_id,
          user.created_at,
        )
        return user
      },
    },
    {
      endpoint: endpoints.getUser,
      run(input): User {
        const caller = callerOf(input)
        const id = input.params.id ?? ''
        const row = byId.get(id) as UserRow | undefined
        if (row === undefined || row.partner_id !== caller.partner.partnerId) {
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
      },
    },
  ]
}
