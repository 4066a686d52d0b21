import type {z} from 'zod'
import {ApiError} from './errors.js'

export interface ReadableIssue {
  /** Dotted path of the offending field (`label`, `metadata.key`), or '' for the whole input. */
  path: string
  code: string
  message: string
}

function readable(issue: z.core.$ZodIssue): ReadableIssue[] {
  const base = issue.path.map(String).join('.')
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
export function validationError(where: string, issues: readonly z.core.$ZodIssue[]): ApiError {
  const list = issues.flatMap(readable)
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
  throw validationError(where, result.error.issues)
}
