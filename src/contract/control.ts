import {z} from 'zod'
import type {Endpoint} from './endpoint.js'
import {Timestamp} from './fields.js'

/** The sandbox's own control routes, outside `/v1`: its health, a partner's reset and its clock. */

export const SandboxHealthSchema = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    pid: z.number().int().optional().describe('process id of the sandbox'),
    responseShape: z.enum(['envelope', 'direct']),
    rateLimit: z.enum(['spec', 'off']),
    tokenTtl: z.number().int().describe('seconds'),
    startedAt: Timestamp,
    settleAfterSeconds: z
      .number()
      .int()
      .optional()
      .describe('how long "1-3 days" takes locally: ACH, wire and crypto settle after this'),
    clock: z
      .object({now: Timestamp, offsetSeconds: z.number()})
      .optional()
      .describe('the sandbox clock, moved by POST /_sandbox/clock/advance'),
  })
  .meta({id: 'SandboxHealth'})
export type SandboxHealth = z.infer<typeof SandboxHealthSchema>

export const SandboxResetSchema = z.object({reset: z.literal(true)}).meta({id: 'SandboxReset'})

export const SandboxClockSchema = z
  .object({
    now: Timestamp,
    offsetSeconds: z.number(),
    settled: z.number().int().describe('transactions settled by this call'),
  })
  .meta({id: 'SandboxClock'})
export const AdvanceClockSchema = z
  .strictObject({
    seconds: z
      .number()
      .int()
      .min(1)
      .max(365 * 86400),
  })
  .meta({id: 'AdvanceClockRequest'})

export const controlEndpoints = {
  sandboxHealth: {
    operationId: 'sandboxHealth',
    method: 'GET',
    path: '/_sandbox/health',
    summary: 'sandbox only: liveness, version and settings of the running sandbox',
    tag: 'sandbox',
    auth: 'none',
    response: SandboxHealthSchema,
    status: 200,
    errors: [],
    enveloped: false,
    versioned: false,
  },
  sandboxReset: {
    operationId: 'sandboxReset',
    method: 'POST',
    path: '/_sandbox/reset',
    summary: "sandbox only: delete every record of the caller's partner, keeping its credentials",
    tag: 'sandbox',
    auth: 'sandbox-admin',
    response: SandboxResetSchema,
    status: 200,
    errors: [],
    enveloped: false,
    versioned: false,
  },
  sandboxAdvanceClock: {
    operationId: 'sandboxAdvanceClock',
    method: 'POST',
    path: '/_sandbox/clock/advance',
    summary: 'sandbox only: move the sandbox clock forward, settling what falls due',
    tag: 'sandbox',
    auth: 'sandbox-admin',
    body: AdvanceClockSchema,
    response: SandboxClockSchema,
    status: 200,
    errors: [],
    enveloped: false,
    versioned: false,
  },
} satisfies Record<string, Endpoint>
