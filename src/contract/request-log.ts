import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {CURSOR_MAX_LENGTH, Timestamp} from './fields.js'

/**
 * The sandbox's request log, a sandbox extension (the interface shows no such thing): one line per
 * request it answered, never a body or a credential, read back partner by partner
 * (docs/sandbox.md#the-request-log).
 */

/** A status filter: a class (`4xx`) or a status (`429`), several separated by commas. */
export const STATUS_FILTER = /^[1-5](xx|\d\d)(,[1-5](xx|\d\d))*$/i

/** Longest `path` glob a reader may give. */
export const PATH_GLOB_MAX_LENGTH = 256

/** How many lines one read returns at most (the newest ones, or the next ones after a cursor). */
export const REQUEST_LOG_PAGE_MAX = 100

export const RequestLogEntrySchema = z
  .object({
    time: Timestamp.describe("when the request arrived, on the machine's clock (not the sandbox clock)"),
    partner: z
      .string()
      .nullable()
      .describe('the partner of the authenticated caller; null for a request no credential admitted'),
    method: z.string(),
    path: z.string().describe('the path as sent, without its query string'),
    status: z.number().int(),
    durationMs: z.number().describe('from the request’s arrival to the last byte of the answer'),
    requestId: z
      .string()
      .describe('the X-Request-Id the caller got: for a replay, the id of the request that produced it'),
    idempotencyKey: z.string().nullable().describe('the key a change was sent with'),
    replayed: z.boolean().describe('the answer was the stored answer of an earlier request with that key'),
    errorCode: z.string().nullable().describe('the code of an error answer'),
    fault: z.string().optional().describe('what injected fault shaped the answer, when one did'),
  })
  .meta({id: 'RequestLogEntry'})
export type RequestLogEntry = z.infer<typeof RequestLogEntrySchema>

export const RequestLogQuerySchema = z
  .strictObject({
    status: z
      .string()
      .max(100)
      .regex(STATUS_FILTER, 'Expected a status class or status, e.g. 4xx, 5xx or 429 (comma-separated)')
      .optional()
      .describe('only answers of these classes or statuses: 4xx, 5xx, 429, or several with commas'),
    path: z
      .string()
      .min(1)
      .max(PATH_GLOB_MAX_LENGTH)
      .optional()
      .describe('only paths matching this glob: * within one segment, ** across segments, ? one character'),
    since: z.iso
      .datetime({offset: true})
      .optional()
      .describe('only requests that arrived at or after this time'),
    request: z.string().min(1).max(64).optional().describe('only the request with this X-Request-Id'),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(REQUEST_LOG_PAGE_MAX)
      .optional()
      .describe('how many lines, 1 to 100 (default 20)'),
    cursor: z
      .string()
      .max(CURSOR_MAX_LENGTH)
      .optional()
      .describe('the cursor of a previous read: only what came after it, oldest first'),
  })
  .meta({id: 'RequestLogQuery'})
export type RequestLogQuery = z.infer<typeof RequestLogQuerySchema>

export const RequestLogPageSchema = z
  .object({
    entries: z
      .array(RequestLogEntrySchema)
      .describe(
        'oldest first: without a cursor the newest lines that match, with one the first that came after it',
      ),
    cursor: z.string().describe('where the next read starts: after the newest request this read covered'),
    hasMore: z.boolean().describe('more lines that match came after these (read again at once)'),
  })
  .meta({id: 'RequestLogPage'})
export type RequestLogPage = z.infer<typeof RequestLogPageSchema>

export const requestLogEndpoints = {
  listRequestLog: {
    operationId: 'listRequestLog',
    method: 'GET',
    path: '/_sandbox/logs',
    summary:
      "sandbox only: the caller's lines of the request log (method, path, status, duration, ids, error code), never bodies or credentials",
    tag: 'sandbox',
    auth: 'sandbox-admin',
    query: RequestLogQuerySchema,
    response: RequestLogPageSchema,
    status: 200,
    errors: [],
    enveloped: false,
    versioned: false,
    rateLimited: false,
  },
} satisfies Record<string, Endpoint>
