import type {Feature} from '../feature.js'
import {faultRoutes} from './routes.js'

/** Faults on demand in a partner's own API requests, and the list of every fault (docs/sandbox.md#faults). */
export const faults: Feature = {
  name: 'faults',
  serve: (context) => ({routes: faultRoutes(context)}),
}
