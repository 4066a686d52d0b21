import type {Feature} from '../feature.js'
import {userRoutes} from './routes.js'
import {UserService} from './service.js'

/** Users: creating and reading them (their table is the tenants', which every feature checks). */
export const users: Feature = {
  name: 'users',
  serve: (context) => ({routes: userRoutes(new UserService(context))}),
}
