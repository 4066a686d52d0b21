import type {SandboxHealth} from '../../contract/control.js'
import {endpoints} from '../../contract/endpoints.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'

/** The sandbox's own routes, outside /v1: health, reset and the clock. */
export function controlRoutes({
  settings,
  clock,
  due,
  partners,
  partnerRows,
  faults,
}: Pick<SandboxContext, 'settings' | 'clock' | 'due' | 'partners' | 'partnerRows' | 'faults'>): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.sandboxHealth,
      run(): SandboxHealth {
        return {
          status: 'ok',
          version: settings.version,
          pid: process.pid,
          responseShape: settings.responseShape,
          rateLimit: settings.rateLimit,
          tokenTtl: settings.tokenTtlSeconds,
          startedAt: settings.startedAt,
          settleAfterSeconds: settings.settleAfterSeconds,
          clock: {now: clock.now().toISOString(), offsetSeconds: clock.offsetSeconds},
        }
      },
    }),
    route({
      endpoint: endpoints.sandboxReset,
      run(input) {
        // Its records, found from every table's tie to its partner; its configuration stays.
        partnerRows.delete(partnerOf(input), 'records')
        // Faults on demand are test set-up held in memory: a reset ends them too.
        faults.clear(partnerOf(input))
        return {reset: true}
      },
    }),
    route({
      endpoint: endpoints.sandboxAdvanceClock,
      run(input) {
        const caller = partnerOf(input)
        // One clock dates and settles every partner's records in the data file: only the partner
        // this sandbox was started for may move it (docs/sandbox.md#the-sandbox-clock).
        if (caller !== partners.served) {
          throw new ApiError(
            'INSUFFICIENT_PERMISSIONS',
            `The sandbox clock belongs to partner ${partners.served}, which this sandbox was started for`,
            {partnerId: caller},
          )
        }
        clock.advance(input.body.seconds)
        const settled = due.run()
        return {now: clock.now().toISOString(), offsetSeconds: clock.offsetSeconds, settled}
      },
    }),
  ]
}
