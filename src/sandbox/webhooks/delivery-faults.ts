import {REORDER_HOLD_MS} from '../../contract/faults.js'
import {SIGNATURE_HEADER, unixSeconds} from '../../contract/webhook-signing/signature.js'
import type {DeliveryFaultState, FaultStore} from '../faults/injection.js'
import type {DeliveryPlanner, DeliveryRow} from './rows.js'
import type {WebhookStore} from './store.js'

/** What a delivery fault does to one attempt about to go out. */
export interface AttemptFault {
  /** Fail the attempt without sending it (`fail-first 1 of 2`). */
  fail?: string
  /** Send it with a signature that does not verify. */
  tamper: boolean
}

interface Held {
  rows: DeliveryRow[]
  state: DeliveryFaultState
  timer: NodeJS.Timeout
  release: (rows: DeliveryRow[]) => void
}

/**
 * The delivery faults of registrations and listen sessions, as the webhook scheduler and the
 * listen hub apply them (docs/webhooks.md#delivery-faults): delays and duplicates at fan-out, failed
 * first attempts and tampered signatures per attempt, and first attempts held back to be shuffled.
 * Everything else of a delivery stays byte-exact.
 */
export class DeliveryFaults {
  readonly #faults: FaultStore
  /** First attempts held back by `reorder`, by target. */
  readonly #held = new Map<string, Held>()
  /** How long first attempts are held back at most: REORDER_HOLD_MS, scaled as the sandbox's waits are. */
  readonly #holdMs: number

  constructor(faults: FaultStore, waitScale = 1) {
    this.#faults = faults
    this.#holdMs = Math.round(REORDER_HOLD_MS * waitScale)
  }

  /** For fan-out: the delay and duplicate of a new delivery to a target that has a fault. */
  readonly plan: DeliveryPlanner = (partnerId, targetId) => this.#faults.delivery(partnerId, targetId)?.plan()

  /** What the target's fault does to the next attempt of `row` (nothing without a fault). */
  attempt(row: DeliveryRow, targetId: string): AttemptFault {
    return this.#faults.delivery(row.partner_id, targetId)?.attempt(row.event_id) ?? {tamper: false}
  }

  /**
   * Hold back a first attempt of a target whose fault reorders: up to its `reorder` of them, for
   * REORDER_HOLD_MS (scaled) at most, then `release` gets them shuffled. False when the row is not held.
   */
  hold(row: DeliveryRow, targetId: string, release: (rows: DeliveryRow[]) => void): boolean {
    const state = this.#faults.delivery(row.partner_id, targetId)
    const size = state?.record.reorder ?? null
    if (state === undefined || size === null || row.attempts > 0) return false
    let held = this.#held.get(targetId)
    if (held === undefined) {
      const timer = setTimeout(() => this.#release(targetId), this.#holdMs)
      timer.unref()
      held = {rows: [], state, timer, release}
      this.#held.set(targetId, held)
    }
    held.rows.push(row)
    if (held.rows.length >= size) this.#release(targetId)
    return true
  }

  #release(targetId: string): void {
    const held = this.#held.get(targetId)
    if (held === undefined) return
    this.#held.delete(targetId)
    clearTimeout(held.timer)
    held.release(held.state.shuffle(held.rows))
  }

  /** Forget what is held (the sandbox is stopping): the rows' leases run out and they go out after a restart. */
  stop(): void {
    for (const held of this.#held.values()) clearTimeout(held.timer)
    this.#held.clear()
  }
}

/** A signature header that no secret verifies: every `v1` changed, the rest (and the body) as it was. */
export function tamperSignature(headers: Record<string, string>): Record<string, string> {
  const header = headers[SIGNATURE_HEADER] ?? ''
  const tampered = header
    .split(',')
    .map((part) =>
      part.startsWith('v1=')
        ? `v1=${[...part.slice(3)].map((c) => (Number.parseInt(c, 16) ^ 1).toString(16)).join('')}`
        : part,
    )
    .join(',')
  return {...headers, [SIGNATURE_HEADER]: tampered}
}

/** The note an attempt's log line carries for what was injected into it, if anything. */
export function attemptNote(fault: AttemptFault, reordered: boolean): string | null {
  const notes = [reordered ? 'reordered' : '', fault.tamper ? 'tampered signature' : ''].filter(
    (n) => n !== '',
  )
  return notes.length === 0 ? null : notes.join(', ')
}

/** An attempt a fault fails without sending it (`--fail-first`): the retry schedule runs as for a real failure. */
export function failOnPurpose(store: WebhookStore, row: DeliveryRow, fault: AttemptFault, now: number): void {
  store.recordAttempt(
    row.id,
    {
      via: row.session_id === null ? 'http' : 'listen',
      startedAt: now,
      signatureT: unixSeconds(now),
      status: null,
      durationMs: 0,
      error: `injected failure (${fault.fail}): not sent`,
      responseBody: null,
      succeeded: false,
      countsAsFailure: true,
      injected: fault.fail ?? null,
    },
    now,
  )
}
