import type {z} from 'zod'
import {endpoints} from '../../contract/endpoints.js'
import {
  EnableRoundupsSchema,
  PutRoundupSettingsSchema,
  ROUNDUP_MULTIPLIERS,
  UpdateRoundupSettingsSchema,
} from '../../contract/roundups.js'
import {callerOf, type OperationInput, type RouteSpec, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {parseInput, type ReadableIssue} from '../validation.js'
import {RoundupService, type SettingsChange} from './service.js'

/** Parse a settings body; a refused multiplier's error also lists the allowed values. */
function settingsBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  try {
    return parseInput(schema, body, 'request body')
  } catch (err) {
    const issues = err instanceof ApiError ? (err.details?.issues as ReadableIssue[] | undefined) : undefined
    if (err instanceof ApiError && issues?.some((issue) => issue.path === 'multiplier')) {
      throw new ApiError(err.code, err.message, {
        ...err.details,
        allowed_multipliers: [...ROUNDUP_MULTIPLIERS],
      })
    }
    throw err
  }
}

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
 * `POST /transactions/process`) and `/roundupsvc/users/{id}/roundups/...`, over one service. Bank
 * transfers finish on the settlement tick.
 */
export function roundupRoutes(ctx: SandboxContext): RouteSpec[] {
  const roundups = new RoundupService(ctx)
  ctx.money.onDue(() => roundups.settleTransfers())
  const path = (input: OperationInput) => ({
    partnerId: callerOf(input).partner.partnerId,
    userId: input.params.id ?? '',
  })

  return [
    {
      endpoint: endpoints.putRoundupSettings,
      run(input) {
        const {partnerId, userId} = path(input)
        const body = settingsBody(PutRoundupSettingsSchema, input.body)
        // A PUT replaces the settings: no destination given means none. The currency is the
        // sandbox's addition, so callers that do not know it keep theirs.
        return roundups.write(partnerId, userId, {
          ...changeOf(body),
          destination: body.destination_account_id ?? null,
        })
      },
    },
    {
      endpoint: endpoints.processRoundup,
      run(input) {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(endpoints.processRoundup.body, input.body, 'request body')
        return roundups.process(partnerId, body)
      },
    },
    {
      endpoint: endpoints.enableRoundups,
      run(input) {
        const {partnerId, userId} = path(input)
        const body = settingsBody(EnableRoundupsSchema, input.body ?? {})
        return roundups.write(partnerId, userId, {...changeOf(body), enabled: true})
      },
    },
    {
      endpoint: endpoints.getRoundupSettings,
      run(input) {
        const {partnerId, userId} = path(input)
        roundups.requireUser(partnerId, userId)
        return roundups.toRecord(roundups.settings(userId))
      },
    },
    {
      endpoint: endpoints.updateRoundupSettings,
      run(input) {
        const {partnerId, userId} = path(input)
        return roundups.write(
          partnerId,
          userId,
          changeOf(settingsBody(UpdateRoundupSettingsSchema, input.body)),
        )
      },
    },
    {
      endpoint: endpoints.getPendingRoundups,
      run(input) {
        const {partnerId, userId} = path(input)
        return roundups.pending(partnerId, userId)
      },
    },
    {
      endpoint: endpoints.transferRoundups,
      run(input) {
        const {partnerId, userId} = path(input)
        parseInput(endpoints.transferRoundups.body, input.body, 'request body')
        return roundups.transfer(partnerId, userId)
      },
    },
  ]
}
