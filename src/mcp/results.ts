import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {PayctlError, redactValue, stringifyExact} from '../core/index.js'

/**
 * What a tool answers: the service's answer (or a refusal) as structured content and as text, with
 * every credential redacted by the rule every log of payctl applies (src/core/redact.ts).
 */

/** A value JSON carries as it is: an amount beyond 2^53 as its digits, since a JSON number would round it. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (Array.isArray(value)) return value.map(plain)
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
  return value
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {value}
}

/** What a call gave, with how the service answered it (its request id, status, and a replay). */
export function answer(data: unknown, meta: Record<string, unknown> = {}): CallToolResult {
  const safe = redactValue(data)
  return {
    // The text keeps amounts exact, digits and all.
    content: [{type: 'text', text: stringifyExact(safe, 2)}],
    structuredContent: record(plain(safe)),
    _meta: Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)),
  }
}

/** A refusal of the arguments before anything was sent. */
export function refusal(code: string, message: string): CallToolResult {
  return failure(new PayctlError({kind: 'usage', code, message}))
}

/**
 * A failed call: the service's error code, its message and the request id, never a stack or a
 * credential. When a change's outcome is unknown, the idempotency key to repeat it with.
 */
export function failure(err: unknown): CallToolResult {
  const error =
    err instanceof PayctlError
      ? {
          code: err.code,
          message: err.message,
          ...(err.status === undefined ? {} : {status: err.status}),
          ...(err.requestId === undefined ? {} : {requestId: err.requestId}),
          ...(err.details === undefined ? {} : {details: err.details}),
        }
      : {code: 'UNEXPECTED', message: err instanceof Error ? err.message : String(err)}
  const safe = redactValue(error) as {
    code: string
    message: string
    requestId?: string
    details?: {idempotencyKey?: unknown}
  }
  const key = safe.details?.idempotencyKey
  const lines = [
    `${safe.code}: ${safe.message}`,
    ...(safe.requestId === undefined ? [] : [`request id: ${safe.requestId}`]),
    ...(typeof key === 'string'
      ? [
          `To repeat it safely, call again with the same arguments and idempotencyKey "${key}": it cannot be applied twice.`,
        ]
      : []),
  ]
  return {
    isError: true,
    content: [{type: 'text', text: lines.join('\n')}],
    structuredContent: {error: plain(safe)},
  }
}
