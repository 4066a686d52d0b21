import {endpoints} from '../../contract/endpoints.js'
import {type PathInput, partnerOf, type RouteSpec, route} from '../context.js'
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
): RouteSpec[] {
  const path = (input: PathInput<'id'>) => ({
    partnerId: partnerOf(input),
    userId: input.params.id,
  })

  return [
    route({
      endpoint: endpoints.putRoundupSettings,
      run(input) {
        const {partnerId, userId} = path(input)
        const {body} = input
        // A PUT replaces the settings: no destination given means none. The currency is the
        // sandbox's addition, so callers that do not know it keep theirs.
        return settings.write(partnerId, userId, {
          ...changeOf(body),
          destination: body.destination_account_id ?? null,
        })
      },
    }),
    route({
      endpoint: endpoints.processRoundup,
      run(input) {
        const partnerId = partnerOf(input)
        return roundups.process(partnerId, input.body)
      },
    }),
    route({
      endpoint: endpoints.enableRoundups,
      run(input) {
        const {partnerId, userId} = path(input)
        return settings.write(partnerId, userId, {...changeOf(input.body), enabled: true})
      },
    }),
    route({
      endpoint: endpoints.getRoundupSettings,
      run(input) {
        const {partnerId, userId} = path(input)
        return settings.get(partnerId, userId)
      },
    }),
    route({
      endpoint: endpoints.updateRoundupSettings,
      run(input) {
        const {partnerId, userId} = path(input)
        return settings.write(partnerId, userId, changeOf(input.body))
      },
    }),
    route({
      endpoint: endpoints.getPendingRoundups,
      run(input) {
        const {partnerId, userId} = path(input)
        return roundups.pending(partnerId, userId)
      },
    }),
    route({
      endpoint: endpoints.transferRoundups,
      run(input) {
        const {partnerId, userId} = path(input)
        return transfers.transfer(partnerId, userId)
      },
    }),
  ]
}
