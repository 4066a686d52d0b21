import {z} from 'zod'
import {ApiError} from './errors.js'

/** Bodiless POSTs (refresh, revoke, reset, connect): an empty object is tolerated, anything more is refused. */
export const NoBodySchema = z.strictObject({}).optional()

export interface ReadableIssue {
  /** Dotted path of the offending field (`label`, `metadata.key`), or '' for the whole input. */
  path: string
  code: string
  message: string
}

/** Said of a number field given an integer no double holds exactly (parseRequestJson made it a bigint). */
export const NUMBER_OUT_OF_RANGE = `Out of range: at most ${Number.MAX_SAFE_INTEGER}, the largest integer a JSON number holds exactly`

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

/** A VALIDATION_ERROR from zod issues: `details.field` names the first culprit, `details.issues` lists all. */
export function validationError(
  where: string,
  issues: readonly z.core.$ZodIssue[],
  input?: unknown,
): ApiError {
  const list = issues.flatMap((issue) => readable(issue, input))
  const summary = list.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ')
  const details: Record<string, unknown> = {issues: list}
  const field = list.find((i) => i.path !== '')?.path
  if (field !== undefined) details.field = field
  return new ApiError('VALIDATION_ERROR', `Invalid ${where}: ${summary}`, details)
}

/** Parse `value` with `schema`, or throw a VALIDATION_ERROR naming `where` (request body, query). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  if (value === undefined) {
    throw new ApiError('VALIDATION_ERROR', `A JSON ${where} is required`, {
      issues: [{path: '', code: 'invalid_type', message: 'Expected a JSON object'}],
    })
  }
  throw validationError(where, result.error.issues, value)
}
