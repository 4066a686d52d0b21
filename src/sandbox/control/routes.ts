import {endpoints} from '../../contract/api/endpoints.js'
import type {SandboxHealth} from '../../contract/control.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {partnerRoutes} from './partner-routes.js'

/** The sandbox's own routes, outside /v1: health, reset, each partner's clock, and the partners. */
export function controlRoutes(
  ctx: Pick<SandboxContext, 'settings' | 'clock' | 'due' | 'partners' | 'partnerRows'>,
): RouteSpec[] {
  const {settings, clock, due, partners, partnerRows} = ctx
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
          // Nobody is signed in here: the operator's clock, which reveals no other partner.
          clock: clock.read(partners.operator),
        }
      },
    }),
    route({
      endpoint: endpoints.sandboxReset,
      run(input) {
        // Its records, found from every table's tie to its partner; its configuration stays, its
        // clock is back on real time and its faults on demand are gone (index.ts).
        partnerRows.delete(partnerOf(input), 'records')
        return {reset: true}
      },
    }),
    route({endpoint: endpoints.sandboxClock, run: (input) => clock.read(partnerOf(input))}),
    route({
      endpoint: endpoints.sandboxAdvanceClock,
      run(input) {
        const partner = partnerOf(input)
        const {seconds, to} = input.body
        if (to !== undefined) clock.moveTo(partner, Date.parse(to))
        else clock.advance(partner, seconds ?? 0)
        // Only the caller's work falls due: no other partner's time moved.
        return {...clock.read(partner), settled: due.run(partner)}
      },
    }),
    route({endpoint: endpoints.sandboxFreezeClock, run: (input) => clock.freeze(partnerOf(input))}),
    route({endpoint: endpoints.sandboxResumeClock, run: (input) => clock.resume(partnerOf(input))}),
    ...partnerRoutes(ctx),
  ]
}
