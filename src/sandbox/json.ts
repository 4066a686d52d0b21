import {createHash} from 'node:crypto'

// JSON.rawJSON (ES2025) is in Node 24 but not yet in TypeScript's es2024 lib.
const rawJSON = (JSON as unknown as {rawJSON(text: string): unknown}).rawJSON

/**
 * An amount for a response body: a plain number while it is a safe integer, otherwise the exact
 * decimal digits spliced into the JSON (wei amounts exceed 2^53 and would be rounded by a double).
 */
export function jsonAmount(value: bigint): number {
  if (value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER))
    return Number(value)
  return rawJSON(value.toString()) as number
}

/** JSON with object keys sorted, so two bodies that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return ''
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    const sorted: Record<string, unknown> = Object.create(null)
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
    return sorted
  })
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
