import {unixSeconds} from '../../contract/webhook-signing/signature.js'
import {attemptNote, type DeliveryFaults, failOnPurpose, tamperSignature} from './delivery-faults.js'
import {envelopeBody, type StoredEvent} from './envelope.js'
import {deliveryHeaders} from './http-delivery.js'
import type {DeliveryRow} from './rows.js'
import type {WebhookStore} from './store.js'

/** What readies attempts: the store, the delivery faults and the sandbox's version (its user agent). */
export interface AttemptSources {
  store: WebhookStore
  faults: DeliveryFaults
  version: string
}

/** Where an attempt goes: a registration or a listen session, either of which may carry a fault. */
export interface AttemptTarget {
  id: string
  /** The secrets that sign the attempt. */
  secrets: readonly string[]
}

/** An attempt ready to go out: the very same bytes and headers over HTTP and over a listen link. */
export interface OutgoingAttempt {
  event: StoredEvent
  /** Its number: one more than the attempts made so far. */
  attempt: number
  body: string
  /** The timestamp the signature carries, in seconds. */
  signatureT: number
  headers: Record<string, string>
  /** What a delivery fault did to it, for its log line; null when nothing. */
  injected: string | null
}

/**
 * Ready the next attempt of `row` to `target` at `now`: the event's body and headers signed with the
 * target's secrets, as the target's delivery fault leaves them. Nothing goes out when the event or
 * the target (undefined: the registration was deleted) is gone, and the delivery is abandoned; nor
 * when a fault fails the attempt on purpose, which is recorded as a failed attempt.
 */
export function prepareAttempt(
  sources: AttemptSources,
  row: DeliveryRow,
  target: AttemptTarget | undefined,
  now: number,
  reordered: boolean,
): OutgoingAttempt | 'abandoned' | 'failed on purpose' {
  const {store, faults, version} = sources
  const event = store.event(row.event_id)
  if (event === undefined || target === undefined) {
    store.abandon(row.id, event === undefined ? 'the event no longer exists' : 'the webhook was deleted', now)
    return 'abandoned'
  }
  const fault = faults.attempt(row, target.id)
  if (fault.fail !== undefined) {
    failOnPurpose(store, row, fault, now)
    return 'failed on purpose'
  }
  const body = envelopeBody(event)
  const signatureT = unixSeconds(now)
  const attempt = row.attempts + 1
  const signed = deliveryHeaders({
    body,
    secrets: target.secrets,
    timestamp: signatureT,
    deliveryId: row.id,
    eventId: event.id,
    attempt,
    version,
  })
  const headers = fault.tamper ? tamperSignature(signed) : signed
  return {event, attempt, body, signatureT, headers, injected: attemptNote(fault, reordered)}
}
