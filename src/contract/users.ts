import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {UserSurface} from './api/surface.js'
import {Id, pageQuery, Timestamp} from './fields.js'

/** Users of a partner. */

const userFields = {
  email: z.email().max(254),
  first_name: z.string().min(1).max(100),
  last_name: z.string().min(1).max(100),
  partner_id: Id.optional().describe("defaults to the caller's partner"),
  external_id: z.string().min(1).max(255).optional(),
}
/** Create-user input, snake_case (HTTP form). */
export const CreateUserSchema = z.strictObject(userFields).meta({id: 'CreateUserRequest'})
/** Create-user input, camelCase (SDK form); the sandbox accepts either. */
export const CreateUserCamelSchema = z
  .strictObject({
    email: userFields.email,
    firstName: userFields.first_name,
    lastName: userFields.last_name,
    partnerId: userFields.partner_id,
    externalId: userFields.external_id,
  })
  .meta({id: 'CreateUserRequestCamel'})
export type CreateUserInput = z.infer<typeof CreateUserSchema>
/** The camelCase form read as the snake_case one: the sandbox's operation gets either form alike. */
export const CreateUserFromCamelSchema = CreateUserCamelSchema.transform(
  (c): CreateUserInput => ({
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    partner_id: c.partnerId,
    external_id: c.externalId,
  }),
)

export const UserSchema = UserSurface.extend({
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  partner_id: z.string(),
  external_id: z.string().nullable(),
  created_at: Timestamp,
})
  .strict()
  .meta({id: 'User'})
export type User = z.infer<typeof UserSchema>

export const ListUsersQuerySchema = z
  .strictObject({
    email: z.string().min(1).max(254).optional().describe('only users with this email, in any case'),
    external_id: z.string().min(1).max(255).optional().describe('only the users with this external id'),
    name: z
      .string()
      .min(1)
      .max(201)
      .optional()
      .describe('only users whose "first last" name contains this, in any case'),
    search: z
      .string()
      .min(1)
      .max(254)
      .optional()
      .describe('only users whose email or "first last" name contains this, in any case'),
    ...pageQuery,
  })
  .meta({id: 'ListUsersQuery'})

/**
 * Whether a user is one that `search` finds: their email or their "first last" name contains the
 * text, in any case. The sandbox's GET /v1/users?search= and its inspector's search box find users
 * by this rule (in SQL: sandbox/users/service.ts); payctl applies it to the pages of a service
 * that lists users but does not search them.
 */
export function userMatchesSearch(
  user: {email?: unknown; first_name?: unknown; last_name?: unknown; firstName?: unknown; lastName?: unknown},
  search: string,
): boolean {
  const text = search.toLowerCase()
  const words = (v: unknown) => (typeof v === 'string' ? v : '')
  const name = `${words(user.first_name ?? user.firstName)} ${words(user.last_name ?? user.lastName)}`
  return words(user.email).toLowerCase().includes(text) || name.toLowerCase().includes(text)
}

export const UserListSchema = z
  .object({users: z.array(UserSchema), hasMore: z.boolean(), nextCursor: z.string().nullable()})
  .meta({id: 'UserList'})
export type UserList = z.infer<typeof UserListSchema>

export const userEndpoints = {
  createUser: {
    operationId: 'createUser',
    method: 'POST',
    path: '/users',
    summary: 'create a user',
    tag: 'users',
    auth: 'bearer',
    scopes: {a: 'users:write', b: 'payments:create'},
    body: CreateUserSchema,
    altBody: CreateUserFromCamelSchema,
    response: UserSchema,
    surface: UserSurface,
    status: 201,
    errors: ['INSUFFICIENT_PERMISSIONS', 'DUPLICATE_TRANSACTION'],
    enveloped: true,
  },
  getUser: {
    operationId: 'getUser',
    method: 'GET',
    path: '/users/{id}',
    summary: 'get a user',
    tag: 'users',
    auth: 'bearer',
    scopes: {a: 'users:read', b: 'payments:read'},
    response: UserSchema,
    surface: UserSurface,
    status: 200,
    errors: ['NOT_FOUND'],
    enveloped: true,
  },
  listUsers: {
    operationId: 'listUsers',
    method: 'GET',
    path: '/users',
    summary:
      "sandbox extension: find the partner's users by email, external id, name or a search of both, oldest first",
    tag: 'users',
    auth: 'bearer',
    scopes: {a: 'users:read', b: 'payments:read'},
    query: ListUsersQuerySchema,
    response: UserListSchema,
    status: 200,
    errors: [],
    enveloped: true,
    extension:
      'the interface shows no way to find a user but by id, and support tickets arrive with an email',
  },
} satisfies Record<string, Endpoint>
