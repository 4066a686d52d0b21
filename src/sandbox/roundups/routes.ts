import {endpoints} from '../../contract/api/endpoints.js'
import {forUserOfPath, partnerOf, type RouteSpec, route} from '../context.js'
import type {Tenants} from '../tenancy/tenants.js'
import type {RoundupService} from './service.js'
import type {RoundupSettings, SettingsChange} from './settings.js'
import type {RoundupTransfers} from './transfers.js'

/** The body's fields as a settings change; `destination_account_id: null` removes the destination. */
function changeOf(body: {
  enabled?: boolean | undefined
  multiplier?: SettingsChange['multiplier']
  max_roundup_amount?: number | undefined
  destination_account_id?: string | null | undefined
  currency?: SettingsChange['currency']
}): SettingsChange {
  return {
    enabled: body.enabled,
    multiplier: body.multiplier,
    max: body.max_roundup_amount,
    destination: body.destination_account_id,
    currency: body.currency,
  }
}

/**
 * Round-ups, both families: the common endpoints (`PUT /users/{id}/roundup-settings`,
 * `POST /transactions/process`) and `/roundupsvc/users/{id}/roundups/...`, over one service.
 */
export function roundupRoutes(
  roundups: RoundupService,
  settings: RoundupSettings,
  transfers: RoundupTransfers,
  tenants: Tenants,
): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.putRoundupSettings,
      // A PUT replaces the settings: no destination given means none. The currency is the
      // sandbox's addition, so callers that do not know it keep theirs.
      run: forUserOfPath(tenants, ({partnerId, userId}, {body}) =>
        settings.write(partnerId, userId, {
          ...changeOf(body),
          destination: body.destination_account_id ?? null,
        }),
      ),
    }),
    route({
      endpoint: endpoints.processRoundup,
      run: (input) => roundups.process(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.enableRoundups,
      run: forUserOfPath(tenants, ({partnerId, userId}, {body}) =>
        settings.write(partnerId, userId, {...changeOf(body), enabled: true}),
      ),
    }),
    route({
      endpoint: endpoints.getRoundupSettings,
      run: forUserOfPath(tenants, ({userId}) => settings.get(userId)),
    }),
    route({
      endpoint: endpoints.updateRoundupSettings,
      run: forUserOfPath(tenants, ({partnerId, userId}, {body}) =>
        settings.write(partnerId, userId, changeOf(body)),
      ),
    }),
    route({
      endpoint: endpoints.getPendingRoundups,
      run: forUserOfPath(tenants, ({userId}) => roundups.pending(userId)),
    }),
    route({
      endpoint: endpoints.transferRoundups,
      run: forUserOfPath(tenants, ({partnerId, userId}) => transfers.transfer(partnerId, userId)),
    }),
  ]
}
