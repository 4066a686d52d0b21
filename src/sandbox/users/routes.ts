import {endpoints} from '../../contract/api/endpoints.js'
import type {User, UserList} from '../../contract/users.js'
import {partnerOf, type RouteSpec, route} from '../context.js'
import type {UserService} from './service.js'

export function userRoutes(users: UserService): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.createUser,
      // Either form of the body (snake_case or the SDK's camelCase) arrives in the snake_case one.
      run: (input): User => users.create(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.getUser,
      run: (input): User => users.get(partnerOf(input), input.params.id),
    }),
    route({
      endpoint: endpoints.listUsers,
      run: (input): UserList => users.list(partnerOf(input), input.query),
    }),
  ]
}
