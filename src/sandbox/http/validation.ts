import {z} from 'zod'
import type {Endpoint} from '../../contract/api/endpoint.js'
import {ID_MAX_LENGTH} from '../../contract/fields.js'
import {MAX_SIGNIFICANT_DIGITS} from '../../contract/money/amounts.js'
import {StorySchema, validStory} from '../../contract/story.js'
import {CreateTransactionSchema, PAYMENT_METHODS} from '../../contract/transactions.js'
import {ApiError} from './api-error.js'

/** Bodiless POSTs (refresh, revoke, reset, connect): an empty object is tolerated, anything more is refused. */
export const NoBodySchema = z.strictObject({}).optional()

export interface ReadableIssue {
  /** Dotted path of the offending field (`label`, `metadata.key`), or '' for the whole input. */
  path: string
  code: string
  message: string
}

/** Said of a number field given an integer no double holds exactly (parseRequestJson made it a bigint or ±Infinity). */
export const NUMBER_OUT_OF_RANGE = `Out of range: at most ${Number.MAX_SAFE_INTEGER}, the largest integer a JSON number holds exactly`

/** Said of a number field given a fraction no double holds as written (parseRequestJson made it NaN). */
export const NUMBER_INEXACT = `Has more than ${MAX_SIGNIFICANT_DIGITS} significant digits (or is below 1e-307), more than a JSON number carries exactly`

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let here = value
  for (const key of path) {
    if (here === null || typeof here !== 'object') return undefined
    here = (here as Record<PropertyKey, unknown>)[key]
  }
  return here
}

function readable(issue: z.core.$ZodIssue, input: unknown): ReadableIssue[] {
  const base = issue.path.map(String).join('.')
  if (issue.code === 'invalid_type' && issue.expected === 'number') {
    const value = at(input, issue.path)
    if (typeof value === 'bigint' || value === Infinity || value === -Infinity) {
      return [{path: base, code: 'too_big', message: NUMBER_OUT_OF_RANGE}]
    }
    if (Number.isNaN(value)) return [{path: base, code: 'invalid_value', message: NUMBER_INEXACT}]
  }
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: base === '' ? key : `${base}.${key}`,
      code: issue.code,
      message: 'Unknown field',
    }))
  }
  return [{path: base, code: issue.code, message: issue.message}]
}

/** Details a refusal adds when it names a field: the endpoint table's `refusalDetails`. */
type FieldDetails = Readonly<Record<string, Readonly<Record<string, unknown>>>>

/**
 * A VALIDATION_ERROR from zod issues: `details.field` names the first culprit, `details.issues` lists
 * all, and `fieldDetails` of each culprit are added.
 */
export function validationError(
  where: string,
  issues: readonly z.core.$ZodIssue[],
  input?: unknown,
  fieldDetails?: FieldDetails,
): ApiError {
  const list = issues.flatMap((issue) => readable(issue, input))
  const summary = list.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ')
  const details: Record<string, unknown> = {issues: list}
  const field = list.find((i) => i.path !== '')?.path
  if (field !== undefined) details.field = field
  if (fieldDetails !== undefined) {
    for (const issue of list)
      if (Object.hasOwn(fieldDetails, issue.path)) Object.assign(details, fieldDetails[issue.path])
  }
  return new ApiError('VALIDATION_ERROR', `Invalid ${where}: ${summary}`, details)
}

const TRANSACTION_IDS = ['currency', 'paymentMethodId', 'sourceWalletId', 'destinationWalletId'] as const
const TRANSACTION_FIELDS = new Set(['amount', 'method', 'description', ...TRANSACTION_IDS])
const METHODS = new Set<unknown>(PAYMENT_METHODS)

/**
 * A POST /transactions body in its everyday form read in plain code: the output CreateTransactionSchema
 * gives it, fields in the schema's order; undefined for any other body (metadata, a key in the body,
 * a bigint amount, anything the schema may refuse), which the schema reads, refusals and all.
 */
export function plainTransactionBody(body: unknown): z.output<typeof CreateTransactionSchema> | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const given = body as Record<string, unknown>
  for (const key in given) if (!Object.hasOwn(given, key) || !TRANSACTION_FIELDS.has(key)) return undefined
  const {amount, method, description} = given
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1) return undefined
  if (!METHODS.has(method)) return undefined
  if (description !== undefined && (typeof description !== 'string' || description.length > 500))
    return undefined
  for (const field of TRANSACTION_IDS) {
    const id = given[field]
    if (field === 'currency' || id !== undefined) {
      if (typeof id !== 'string' || id.length < 1 || id.length > ID_MAX_LENGTH) return undefined
    }
  }
  const read: Record<string, unknown> = {amount: BigInt(amount), currency: given.currency, method}
  for (const field of ['paymentMethodId', 'sourceWalletId', 'destinationWalletId', 'description'])
    if (given[field] !== undefined) read[field] = given[field]
  return read as z.output<typeof CreateTransactionSchema>
}

/** Bodies read in plain code in their everyday form, by schema: the busiest ones, where zod cost most. */
const PLAIN_READERS = new Map<z.ZodType, (value: unknown) => unknown>([
  [CreateTransactionSchema, plainTransactionBody],
  [StorySchema, validStory],
])

/** Parse `value` with `schema`, or throw a VALIDATION_ERROR naming `where` (request body, query). */
function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
  fieldDetails?: FieldDetails,
): z.output<S> {
  const plain = PLAIN_READERS.get(schema)?.(value)
  if (plain !== undefined) return plain as z.output<S>
  const result = schema.safeParse(value)
  if (result.success) return result.data
  if (value === undefined) {
    throw new ApiError('VALIDATION_ERROR', `A JSON ${where} is required`, {
      issues: [{path: '', code: 'invalid_type', message: 'Expected a JSON object'}],
    })
  }
  throw validationError(where, result.error.issues, value, fieldDetails)
}

/**
 * The body and query of a request to `endpoint`, parsed with the endpoint's schemas: what its
 * operation receives. A query is read only where the endpoint has a query schema, as a body is only
 * where it has a body schema, except that a POST without one may send nothing or `{}` and no more.
 */
export function parseRequest(
  endpoint: Endpoint,
  body: unknown,
  query: unknown,
): {body: unknown; query: unknown} {
  return {
    body: parseBody(endpoint, body),
    query: endpoint.query === undefined ? undefined : parseInput(endpoint.query, query, 'query'),
  }
}

function parseBody(endpoint: Endpoint, body: unknown): unknown {
  if (endpoint.body === undefined) {
    if (endpoint.method === 'POST') parseInput(NoBodySchema, body, 'request body')
    return undefined
  }
  // Where the body is optional, JSON `null` is no body as well.
  const given = endpoint.bodyOptional === true ? (body ?? {}) : body
  const schema =
    endpoint.altBody !== undefined && inOtherForm(endpoint.body, endpoint.altBody, given)
      ? endpoint.altBody
      : endpoint.body
  return parseInput(schema, given, 'request body', endpoint.refusalDetails)
}

/** The field names of an object schema, also behind a transform of it. */
function fieldsOf(schema: z.core.$ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape)
  return schema instanceof z.ZodPipe ? fieldsOf(schema.in) : []
}

/**
 * Whether `body` is in the endpoint's camelCase form (`altBody`): it names a field only that form
 * has. A body naming fields only each form has is refused, never read as either.
 */
function inOtherForm(main: z.ZodType, other: z.ZodType, body: unknown): boolean {
  const mainFields = fieldsOf(main)
  const otherFields = fieldsOf(other)
  const keys = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : []
  const snake = keys.filter((k) => mainFields.includes(k) && !otherFields.includes(k))
  const camel = keys.filter((k) => otherFields.includes(k) && !mainFields.includes(k))
  if (camel.length === 0) return false
  if (snake.length === 0) return true
  const mixed = [...snake, ...camel]
  throw new ApiError(
    'VALIDATION_ERROR',
    `Invalid request body: use either snake_case or camelCase field names, not both (${mixed.join(', ')})`,
    {
      field: camel[0],
      issues: mixed.map((path) => ({
        path,
        code: 'mixed_naming',
        message: 'snake_case and camelCase fields mixed',
      })),
    },
  )
}
