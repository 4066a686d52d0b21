import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {Timestamp} from './fields.js'

/**
 * The sandbox's own control routes, outside `/v1`: its health, a partner's reset and clock, and
 * the partners the operator (the partner the sandbox started with) manages.
 */

/** A partner's name: what its profile is called by default, so a name a file name can be. */
export const PARTNER_NAME_RULE = 'a letter or digit, then up to 62 letters, digits, _ or -'
export const PartnerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/, `a partner's name is ${PARTNER_NAME_RULE}`)
  .describe(`the partner's name: ${PARTNER_NAME_RULE}`)

/** Where a partner's clock stands. */
const clockFields = {
  now: Timestamp,
  offsetSeconds: z.number().describe('how far ahead of real time, in seconds'),
  frozen: z.boolean().describe('stopped: nothing it drives happens until it is moved or resumed'),
}
export const ClockReadingSchema = z.object(clockFields).meta({id: 'SandboxClockReading'})
export type ClockReading = z.infer<typeof ClockReadingSchema>

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
      .object({now: Timestamp, offsetSeconds: z.number(), frozen: z.boolean().optional()})
      .optional()
      .describe("the operator's clock (each partner has its own: GET /_sandbox/clock)"),
  })
  .meta({id: 'SandboxHealth'})
export type SandboxHealth = z.infer<typeof SandboxHealthSchema>

export const SandboxResetSchema = z.object({reset: z.literal(true)}).meta({id: 'SandboxReset'})

export const SandboxClockSchema = z
  .object({
    ...clockFields,
    settled: z.number().int().describe('records that fell due and were finished by this call'),
  })
  .meta({id: 'SandboxClock'})
export const AdvanceClockSchema = z
  .strictObject({
    seconds: z
      .number()
      .int()
      .min(1)
      .max(365 * 86400)
      .optional()
      .describe('how far to move, or give `to`'),
    to: z.iso
      .datetime({offset: true})
      .optional()
      .describe('the time to move to (ISO 8601): not before now, at most a year ahead'),
  })
  .refine((body) => (body.seconds === undefined) !== (body.to === undefined), {
    message: 'give either seconds or to',
    path: ['seconds'],
  })
  .meta({id: 'AdvanceClockRequest'})

const partnerFields = {
  name: PartnerName,
  partnerId: z.string(),
  createdAt: Timestamp,
  operator: z.boolean().describe('the partner the sandbox started with, which manages the others'),
}
export const PartnerSchema = z.object(partnerFields).meta({id: 'SandboxPartner'})
export type SandboxPartner = z.infer<typeof PartnerSchema>
export const NewPartnerSchema = z
  .object({
    ...partnerFields,
    apiKey: z.string().describe('Variant A public key, pk_test_…'),
    apiSecret: z.string().describe('Variant A secret, sk_test_…'),
    secretKey: z.string().describe('Variant B secret key, test_…'),
  })
  .meta({id: 'SandboxNewPartner'})
export type NewPartner = z.infer<typeof NewPartnerSchema>
export const PartnerListSchema = z.object({data: z.array(PartnerSchema)}).meta({id: 'SandboxPartnerList'})
export const CreatePartnerSchema = z.strictObject({name: PartnerName}).meta({id: 'CreatePartnerRequest'})
export const DeletedPartnerSchema = z
  .object({name: PartnerName, partnerId: z.string(), deleted: z.literal(true)})
  .meta({id: 'SandboxDeletedPartner'})

/** What every control route shares. */
const control = {
  tag: 'sandbox',
  auth: 'sandbox-admin',
  status: 200,
  enveloped: false,
  versioned: false,
} as const

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
  sandboxClock: {
    ...control,
    operationId: 'sandboxClock',
    method: 'GET',
    path: '/_sandbox/clock',
    summary: "sandbox only: the caller's clock",
    response: ClockReadingSchema,
    errors: [],
  },
  sandboxAdvanceClock: {
    ...control,
    operationId: 'sandboxAdvanceClock',
    method: 'POST',
    path: '/_sandbox/clock/advance',
    summary:
      "sandbox only: move the caller's clock forward, by seconds or to a time, finishing what falls due",
    body: AdvanceClockSchema,
    response: SandboxClockSchema,
    errors: [],
  },
  sandboxFreezeClock: {
    ...control,
    operationId: 'sandboxFreezeClock',
    method: 'POST',
    path: '/_sandbox/clock/freeze',
    summary: "sandbox only: stop the caller's clock where it is",
    response: ClockReadingSchema,
    errors: ['INVALID_STATE_TRANSITION'],
  },
  sandboxResumeClock: {
    ...control,
    operationId: 'sandboxResumeClock',
    method: 'POST',
    path: '/_sandbox/clock/resume',
    summary: "sandbox only: let the caller's frozen clock run again from where it stopped",
    response: ClockReadingSchema,
    errors: ['INVALID_STATE_TRANSITION'],
  },
  createPartner: {
    ...control,
    operationId: 'createPartner',
    method: 'POST',
    path: '/_sandbox/partners',
    summary:
      'sandbox only, for the operator: a new partner with fresh credentials, isolated from every other',
    body: CreatePartnerSchema,
    response: NewPartnerSchema,
    status: 201,
    errors: ['INSUFFICIENT_PERMISSIONS', 'PARTNER_EXISTS'],
  },
  listPartners: {
    ...control,
    operationId: 'listPartners',
    method: 'GET',
    path: '/_sandbox/partners',
    summary: 'sandbox only, for the operator: every partner the sandbox serves, oldest first',
    response: PartnerListSchema,
    errors: ['INSUFFICIENT_PERMISSIONS'],
  },
  deletePartner: {
    ...control,
    operationId: 'deletePartner',
    method: 'DELETE',
    path: '/_sandbox/partners/{name}',
    summary:
      'sandbox only, for the operator: delete a partner and every row of it, ending its tokens and listen sessions',
    response: DeletedPartnerSchema,
    errors: ['INSUFFICIENT_PERMISSIONS', 'NOT_FOUND', 'INVALID_STATE_TRANSITION'],
  },
} satisfies Record<string, Endpoint>
