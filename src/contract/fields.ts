import {z} from 'zod'
import {MAX_EXACT_DIGITS, minorFrom} from './money/amounts.js'
import {SUPPORTED_CURRENCIES} from './money/currencies.js'

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

/** A currency code of a wallet. */
export const CurrencySchema = z.enum(SUPPORTED_CURRENCIES)

/**
 * An integer amount in the currency's smallest unit, as the contract's schemas declare it. Not limited
 * to 2^53: amounts of 18- and 24-decimal tokens (ETH in wei, NEAR in yoctoNEAR) exceed it. The sandbox
 * keeps them exact (BigInt) and writes them as exact JSON integers; a JavaScript `JSON.parse` reads
 * such a value as the nearest double.
 */
export const MinorAmount = z.number().multipleOf(1)

/**
 * An integer too long to read exactly: ±Infinity from the sandbox's reader (see MAX_EXACT_DIGITS),
 * or an integral double beyond 2^53 from a plain `JSON.parse`. NaN is not one: the sandbox reads a
 * fraction no double holds as written (1.0000000000000000001) as NaN, which is not an integer.
 */
function isOutOfRange(value: unknown): boolean {
  return typeof value === 'number' && (Number.isInteger(value) || value === Infinity || value === -Infinity)
}

/**
 * An amount of a request body, read exactly: a safe integer, or a bigint (the sandbox reads an
 * integer literal beyond 2^53 as one; the client sends bigints as exact digits), always handed on as
 * bigint. A number that is not a safe integer here was a fractional literal, or one too long to read
 * exactly. Documented as MinorAmount is, an integer that may exceed 2^53.
 */
function exactAmount(minimum: 0n | 1n): z.ZodType<bigint, number | bigint> {
  const amount = z.unknown().transform((value, ctx): bigint => {
    const exact = minorFrom(value)
    if (exact === undefined) {
      ctx.addIssue({
        code: 'custom',
        message:
          value === undefined
            ? 'Required'
            : isOutOfRange(value)
              ? `Out of range: an amount has at most ${MAX_EXACT_DIGITS} digits`
              : 'Expected an integer amount in the smallest currency unit (cents, wei…)',
        input: value,
      })
      return z.NEVER
    }
    if (exact < minimum) {
      ctx.addIssue({
        code: 'custom',
        message: minimum === 0n ? 'Expected an amount of 0 or more' : 'Expected an amount above 0',
        input: value,
      })
      return z.NEVER
    }
    return exact
  })
  // The JSON Schema of MinorAmount.positive() or .nonnegative(): a transform has none of its own.
  const bound = minimum === 0n ? {minimum: 0} : {exclusiveMinimum: 0}
  return amount.meta({type: 'number', multipleOf: 1, ...bound}) as z.ZodType as z.ZodType<
    bigint,
    number | bigint
  >
}

/** A positive amount of a request body (payments, refunds, limits), read exactly as bigint. */
export const PositiveMinorAmount = exactAmount(1n)
/** A non-negative amount of a request body (a wallet's initial balance), read exactly as bigint. */
export const NonNegativeMinorAmount = exactAmount(0n)

/** The `meta` of a Variant A envelope. */
export const MetaSchema = z.object({requestId: z.string(), timestamp: z.string()}).meta({id: 'Meta'})

/** Variant A success shape: `success` true, `data`, `meta`. */
export function envelopeOf<T extends z.ZodType>(data: T) {
  return z.object({success: z.literal(true), data, meta: MetaSchema})
}
