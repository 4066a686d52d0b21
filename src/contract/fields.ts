import {z} from 'zod'

/**
 * The fields many records and queries share, defined once so that every feature bounds and
 * documents them alike.
 */

/** An ISO 8601 date-time, as every record writes its times. */
export const Timestamp = z.string().describe('ISO 8601 timestamp')

/**
 * How large what a caller sends may be, so that every answer is bounded too: a record holds only
 * bounded strings, and a page holds at most 100 records. The spec is silent on all of these but a
 * wallet's label (50 characters); docs/sandbox.md#sizes lists them.
 */

/** An identifier, or any short code the caller names (a currency, a partner id, a token). */
export const ID_MAX_LENGTH = 255
export const Id = z.string().min(1).max(ID_MAX_LENGTH)

/** A webhook receiver's URL. */
export const URL_MAX_LENGTH = 2048

/** A page cursor: opaque, issued by the service. */
export const CURSOR_MAX_LENGTH = 512

/** The query fields of a paged list: how many records a page holds, and where it starts. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).optional().describe('page size, 1 to 100 (default 20)'),
  cursor: z.string().max(CURSOR_MAX_LENGTH).optional().describe('the nextCursor of the previous page'),
}

/** Custom key-value pairs on a transaction, bounded as payment APIs bound them. */
export const METADATA_LIMITS = {keys: 50, keyLength: 40, valueLength: 500, totalBytes: 8192} as const

export const MetadataSchema = z
  .record(z.string().min(1).max(METADATA_LIMITS.keyLength), z.string().max(METADATA_LIMITS.valueLength))
  .refine((m) => Object.keys(m).length <= METADATA_LIMITS.keys, {
    message: `Too many keys: at most ${METADATA_LIMITS.keys}`,
  })
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_LIMITS.totalBytes, {
    message: `Too large: at most ${METADATA_LIMITS.totalBytes} bytes as JSON`,
  })
  .meta({
    maxProperties: METADATA_LIMITS.keys,
    description: `custom key-value pairs: at most ${METADATA_LIMITS.keys} keys of 1 to ${METADATA_LIMITS.keyLength} characters, values of at most ${METADATA_LIMITS.valueLength}, ${METADATA_LIMITS.totalBytes} bytes in all as JSON`,
  })

/**
 * A time a list is bounded by (`since`, `until`): an instant (ISO 8601 with its offset or `Z`), a
 * date (midnight UTC), or a duration back from the service's now (`30m`, `24h`, `7d`, `2w`; the
 * sandbox's now is its clock's).
 */
const TIME_BOUND =
  /^(?:(\d{1,6})([smhdw])|\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?)$/
const UNIT_MS = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000} as const

/**
 * The instant a time bound stands for, as ISO 8601 in UTC (as every record writes its times), a
 * duration counted back from `nowMs`; undefined when it is none (`2026-02-30`).
 */
export function instantOf(bound: string, nowMs: number): string | undefined {
  const match = TIME_BOUND.exec(bound)
  if (match === null) return undefined
  const [, count, unit] = match
  if (count !== undefined)
    return new Date(nowMs - Number(count) * UNIT_MS[unit as keyof typeof UNIT_MS]).toISOString()
  // Date.parse rolls 2026-02-30 over to March: a day that does not exist is refused instead.
  const [y, m, d] = bound.slice(0, 10).split('-').map(Number) as [number, number, number]
  const day = new Date(Date.UTC(y, m - 1, d))
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return undefined
  const ms = Date.parse(bound.length === 10 ? `${bound}T00:00:00Z` : bound)
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined
}

export const TimeBound = z
  .string()
  .max(40)
  .refine((v) => instantOf(v, 0) !== undefined, {
    message:
      'Expected an ISO 8601 instant (2026-12-10T20:14:00Z), a date (2026-12-10) or a duration (24h, 7d)',
  })
  .meta({
    pattern: TIME_BOUND.source,
    description:
      "an instant (ISO 8601 with Z or an offset), a date (midnight UTC) or a duration back from the service's now: 30m, 24h, 7d, 2w",
  })
