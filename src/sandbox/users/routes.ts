import {endpoints} from '../../contract/endpoints.js'
import {
  CreateUserCamelSchema,
  type CreateUserInput,
  CreateUserSchema,
  type User,
} from '../../contract/resources.js'
import {callerOf, type RouteSpec, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {parseInput} from '../validation.js'
import {UserService} from './service.js'

const SNAKE_ONLY = ['first_name', 'last_name', 'partner_id', 'external_id']
const CAMEL_ONLY = ['firstName', 'lastName', 'partnerId', 'externalId']

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
  const users = new UserService(ctx)
  return [
    {
      endpoint: endpoints.createUser,
      run(input): User {
        const caller = callerOf(input)
        const body = readCreateUser(input.body)
        return users.create(caller.partner.partnerId, body)
      },
    },
    {
      endpoint: endpoints.getUser,
      run(input): User {
        const caller = callerOf(input)
        return users.get(caller.partner.partnerId, input.params.id ?? '')
      },
    },
  ]
}
