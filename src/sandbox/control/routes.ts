import type {SandboxHealth} from '../../contract/control.js'
import {endpoints} from '../../contract/endpoints.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {ControlService} from './service.js'

/** The sandbox's own routes, outside /v1: health and reset. */
export function controlRoutes(ctx: SandboxContext): RouteSpec[] {
  const {settings} = ctx
  const control = new ControlService(ctx.database)
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
          clock: {now: ctx.clock.now().toISOString(), offsetSeconds: ctx.clock.offsetSeconds},
        }
      },
    }),
    route({
      endpoint: endpoints.sandboxReset,
      run(input) {
        const partnerId = partnerOf(input)
        control.reset(partnerId)
        return {reset: true}
      },
    }),
  ]
}
