import type {EventEnvelope, EventName} from '../../contract/events/envelope.js'
import {rawJSON} from '../../contract/money/amounts.js'

/** An event as stored: `data` is the JSON text written when the event was recorded. */
export interface StoredEvent {
  seq: number
  id: string
  type: EventName
  partner_id: string
  data: string
  created_at: string
}

/**
 * The body of every delivery of `event`: `{id, event, data, timestamp}`, built by splicing the
 * stored data text in, so every attempt carries the very same bytes and amounts beyond 2^53 keep
 * every digit.
 */
export function envelopeBody(event: StoredEvent): string {
  return `{"id":${JSON.stringify(event.id)},"event":${JSON.stringify(event.type)},"data":${event.data},"timestamp":${JSON.stringify(event.created_at)}}`
}

/** The envelope as an API resource, its integers exact (re-serialised with their original digits). */
export function envelopeOf(event: StoredEvent): EventEnvelope {
  const data = JSON.parse(event.data, (_key, value: unknown, context?: {source?: string}) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined
      ? rawJSON(context.source)
      : value,
  ) as Record<string, unknown>
  return {id: event.id, event: event.type, data, timestamp: event.created_at}
}
