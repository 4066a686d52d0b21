import {endpoints} from '../../contract/endpoints.js'
import type {User} from '../../contract/resources.js'
import {callerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {UserService} from './service.js'

export function userRoutes(ctx: SandboxContext): RouteSpec[] {
  const users = new UserService(ctx)
  return [
    route({
      endpoint: endpoints.createUser,
      run(input): User {
        const caller = callerOf(input)
        // Either form of the body (snake_case or the SDK's camelCase) arrives in the snake_case one.
        return users.create(caller.partner.partnerId, input.body)
      },
    }),
    route({
      endpoint: endpoints.getUser,
      run(input): User {
        const caller = callerOf(input)
        return users.get(caller.partner.partnerId, input.params.id)
      },
    }),
  ]
}
