import type {Feature} from '../feature.js'
import {controlRoutes} from './routes.js'

/** The sandbox's own routes, outside /v1: health, reset and the clock. */
export const control: Feature = {
  name: 'control',
  serve: (context) => ({routes: controlRoutes(context)}),
}
