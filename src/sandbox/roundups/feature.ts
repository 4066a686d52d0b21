import type {Feature} from '../feature.js'
import {roundupRoutes} from './routes.js'
import {ROUNDUPS_SCHEMA} from './schema.js'
import {RoundupService} from './service.js'

/** Round-ups, both families of endpoints; bank transfers finish when their withdrawal settles. */
export const roundups: Feature = {
  ...ROUNDUPS_SCHEMA,
  serve(context) {
    const service = new RoundupService(context)
    return {routes: roundupRoutes(service), due: () => service.settleTransfers()}
  },
}
