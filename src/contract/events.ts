import {z} from 'zod'
import {Timestamp} from './fields.js'

/**
 * The events the service announces, apart from the features that record them: money movement,
 * round-ups, BNPL and the wallet product all record events, and webhooks deliver every one.
 */

export const EVENT_NAMES = [
  'roundupsvc.roundup.processed',
  'roundupsvc.transfer.completed',
  'bnplsvc.payment.created',
  'bnplsvc.payment.completed',
  'bnplsvc.payment.failed',
  'walletsvc.payment.completed',
  'walletsvc.p2p.sent',
  'walletsvc.card.created',
  'transfer.completed',
  'transfer.failed',
  'roundup.processed',
  'wallet.created',
  'transaction.completed',
  'transaction.failed',
] as const
export type EventName = (typeof EVENT_NAMES)[number]

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
