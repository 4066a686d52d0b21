import type {Feature} from '../feature.js'
import {AUTH_SCHEMA} from '../tenancy/schema.js'
import {authRoutes} from './routes.js'

/** Tokens: exchanging credentials, refreshing, revoking, minting Variant B JWTs. */
export const auth: Feature = {
  ...AUTH_SCHEMA,
  serve: (context) => ({routes: authRoutes(context)}),
}
