import {rawJSON} from '../contract/money/amounts.js'

/**
 * JSON that keeps integers exact beyond 2^53: amounts of 18- and 24-decimal currencies (wei,
 * yoctoNEAR) travel as plain JSON numbers, which `JSON.parse` would round to the nearest double.
 */

// The reviver's `context.source` is ES2025, like JSON.rawJSON: in Node 24, not yet in TypeScript's lib.

// Every integer of 15 digits or fewer is safe: without a run of 16 digits, no number needs the
// reviver. (A string holding such a run merely takes the slower path.)
const MAY_HOLD_UNSAFE_INTEGER = /\d{16}/

/** Whether `text`, parsed by JSON.parse alone, has every integer exact (parseExact would agree). */
export function isExactWithoutReviver(text: string): boolean {
  return !MAY_HOLD_UNSAFE_INTEGER.test(text)
}

/** Parse JSON, turning integers that a double cannot hold exactly into bigint. */
export function parseExact(text: string): unknown {
  // The reviver runs for every value of the document: skip it when no number can need it.
  if (isExactWithoutReviver(text)) return JSON.parse(text)
  return JSON.parse(text, function (
    this: unknown,
    _key: string,
    value: unknown,
    context?: {source?: string},
  ) {
    if (
      typeof value === 'number' &&
      !Number.isSafeInteger(value) &&
      context?.source &&
      /^-?\d+$/.test(context.source)
    ) {
      return BigInt(context.source)
    }
    return value
  } as (this: unknown, key: string, value: unknown) => unknown)
}

/** Stringify JSON, writing bigint values as exact integer digits. */
export function stringifyExact(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => (typeof v === 'bigint' ? rawJSON(v.toString()) : v),
    indent,
  )
}
