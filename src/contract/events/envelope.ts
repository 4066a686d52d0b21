import {z} from 'zod'
import {Timestamp} from '../fields.js'
import {EVENT_NAMES} from './names.js'

/**
 * The events the service announces, apart from the features that record them: money movement,
 * round-ups, BNPL and the wallet product all record events, and webhooks deliver every one. Which
 * of an event's fields are amounts, and in which unit, is EVENT_AMOUNTS (event-amounts.ts).
 */

export {EVENT_NAMES, type EventName} from './names.js'

/** Webhook envelope: `event`, `data`, `timestamp`, plus the event `id`. */
export const EventEnvelopeSchema = z
  .object({
    id: z.string(),
    event: z.enum(EVENT_NAMES),
    data: z.record(z.string(), z.unknown()),
    timestamp: Timestamp,
  })
  .meta({id: 'EventEnvelope'})
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>
