import type {Feature} from '../feature.js'
import {serveOpenApi} from './openapi-route.js'
import {controlRoutes} from './routes.js'

/** The sandbox's own routes, outside /v1: health, reset, the clock, and the OpenAPI document. */
export const control: Feature = {
  name: 'control',
  serve: (context) => ({routes: controlRoutes(context), attach: serveOpenApi}),
}
