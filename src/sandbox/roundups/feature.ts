import type {Feature} from '../feature.js'
import {roundupRoutes} from './routes.js'
import {ROUNDUPS_SCHEMA, TRANSFER_OWNER} from './schema.js'
import {RoundupService} from './service.js'
import {RoundupSettings} from './settings.js'
import {statements} from './store.js'
import {RoundupTransfers} from './transfers.js'

/** Round-ups, both families of endpoints; bank transfers finish when their withdrawal settles. */
export const roundups: Feature = {
  ...ROUNDUPS_SCHEMA,
  owners: [TRANSFER_OWNER],
  serve(context) {
    const q = statements(context.database)
    const settings = new RoundupSettings(context, q)
    const transfers = new RoundupTransfers(context, q, settings)
    return {
      routes: roundupRoutes(new RoundupService(context, q, settings), settings, transfers, context.tenants),
      due: (partnerId, nowMs) => transfers.settleTransfers(partnerId, nowMs),
    }
  },
}
