import {endpoints} from '../../contract/endpoints.js'
import type {SandboxHealth} from '../../contract/resources.js'
import {callerOf, type RouteSpec, type SandboxContext} from '../context.js'
import {MONEY_TABLES} from '../database.js'
import {NoBodySchema, parseInput} from '../validation.js'

/** The sandbox's own routes, outside /v1: health and reset. */
export function controlRoutes(ctx: SandboxContext): RouteSpec[] {
  const {db} = ctx.database
  const {settings} = ctx
  const wipe = ['users', 'wallets', 'events', 'idempotency_keys', ...MONEY_TABLES].map((table) =>
    db.prepare(`DELETE FROM ${table} WHERE partner_id = ?`),
  )
  return [
    {
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
    },
    {
      endpoint: endpoints.sandboxReset,
      run(input) {
        parseInput(NoBodySchema, input.body, 'request body')
        const partnerId = callerOf(input).partner.partnerId
        ctx.database.transaction(() => {
          for (const statement of wipe) statement.run(partnerId)
        })
        return {reset: true}
      },
    },
  ]
}
