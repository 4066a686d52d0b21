import type {Feature} from '../feature.js'
import {storyRoutes} from './routes.js'

/**
 * A customer's story loaded as it happened (`payctl sandbox import`, `payctl seed` of a story
 * fixture): no tables of its own, it writes the rows of the others' in one transaction.
 */
export const story: Feature = {
  name: 'story',
  serve: (context) => ({routes: storyRoutes(context)}),
}
