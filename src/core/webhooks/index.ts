import {readFile} from 'node:fs/promises'
import {EVENT_NAMES, type EventName} from '../../contract/events/envelope.js'
import {
  type SignatureFailure,
  type VerifyOptions,
  verifySignature,
} from '../../contract/webhook-signing/signature.js'
import {closestEventName, unknownEventSelector} from '../../contract/webhooks.js'
import {PayctlError, usageError} from '../errors.js'

export * from '../../contract/webhook-signing/signature.js'
export {closeForwarding, FORWARD_TIMEOUT_MS, forwardDelivery} from './forward.js'
export {type ListenEvent, Listener, type ListenOptions, type ListenSummary, socketUrl} from './listen.js'
export {type DeliveryOutcome, ListenState, settles} from './listen-state.js'
export {parseTriggerOverrides, type TriggerFlags} from './overrides.js'

function unknownEvent(flag: string, value: string, suggestion: EventName | undefined): PayctlError {
  return new PayctlError({
    kind: 'usage',
    code: 'UNKNOWN_EVENT',
    message: `${flag}: unknown event "${value}"${suggestion === undefined ? '' : `; did you mean "${suggestion}"?`}`,
    details: {value, ...(suggestion === undefined ? {} : {suggestion})},
    suggestions:
      suggestion === undefined ? [`Known events: ${EVENT_NAMES.join(', ')} (or prefix.* or *)`] : [],
  })
}

/** `a,b,prefix.*` from a flag → event selectors, refusing unknown names with a "did you mean". */
export function parseEventSelectors(text: string, flag = '--events'): string[] {
  const selectors = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ]
  if (selectors.length === 0) throw usageError(`${flag} needs at least one event name`, 'UNKNOWN_EVENT')
  const bad = unknownEventSelector(selectors)
  if (bad !== undefined) throw unknownEvent(flag, bad.selector, bad.suggestion)
  return selectors
}

/** One exact event name (no wildcard), refused with a "did you mean" when unknown. */
export function parseEventName(text: string, what = 'event'): EventName {
  if ((EVENT_NAMES as readonly string[]).includes(text)) return text as EventName
  throw unknownEvent(what, text, closestEventName(text))
}

/** The exact bytes of a payload: a file, or all of `stdin` for `-` or no file. */
export async function readPayload(
  file: string | undefined,
  stdin: AsyncIterable<unknown> = process.stdin,
): Promise<Buffer> {
  if (file !== undefined && file !== '-') {
    try {
      return await readFile(file)
    } catch (cause) {
      throw new PayctlError({
        kind: 'usage',
        code: 'PAYLOAD_UNREADABLE',
        message: `cannot read --payload ${file}: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`,
        cause,
      })
    }
  }
  const chunks: Buffer[] = []
  for await (const chunk of stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

const FAILURE_CODES: Record<SignatureFailure, string> = {
  missing_header: 'SIGNATURE_MISSING',
  malformed_header: 'SIGNATURE_MALFORMED',
  no_v1_signature: 'SIGNATURE_NO_V1',
  no_match: 'SIGNATURE_MISMATCH',
  timestamp_out_of_tolerance: 'SIGNATURE_TIMESTAMP_OUT_OF_TOLERANCE',
}

/** Verify a signature, throwing a PayctlError with a stable code per failure (for `webhooks verify`). */
export function verifyOrThrow(
  payload: Uint8Array,
  header: string,
  secret: string,
  options: VerifyOptions = {},
): {valid: true; timestamp: number; ageSeconds: number; secretIndex: number} {
  const result = verifySignature(payload, header, secret, options)
  if (result.ok) {
    return {
      valid: true,
      timestamp: result.timestamp,
      ageSeconds: result.ageSeconds,
      secretIndex: result.secretIndex,
    }
  }
  const suggestions: string[] = []
  if (result.reason === 'timestamp_out_of_tolerance') {
    suggestions.push('To inspect an old delivery anyway: --tolerance 0 (skips the timestamp check)')
  }
  if (result.reason === 'no_match' && !secret.startsWith('whsec_')) {
    suggestions.push('Signing secrets start with whsec_: is this the right value?')
  }
  throw new PayctlError({
    kind: 'api',
    code: FAILURE_CODES[result.reason],
    message: result.message,
    details: {
      reason: result.reason,
      ...(result.timestamp === undefined ? {} : {timestamp: result.timestamp}),
    },
    suggestions,
  })
}
