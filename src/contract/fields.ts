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
