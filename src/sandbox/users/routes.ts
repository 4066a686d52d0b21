import {endpoints} from '../../contract/endpoints.js'
import type {User} from '../../contract/users.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {UserService} from './service.js'

export function userRoutes(ctx: SandboxContext): RouteSpec[] {
  const users = new UserService(ctx)
  return [
    route({
      endpoint: endpoints.createUser,
      run(input): User {
        // Either form of the body (snake_case or the SDK's camelCase) arrives in the snake_case one.
        return users.create(partnerOf(input), input.body)
      },
    }),
    route({
      endpoint: endpoints.getUser,
      run(input): User {
        return users.get(partnerOf(input), input.params.id)
      },
    }),
  ]
}
