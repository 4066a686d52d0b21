import {parseRoutePattern} from '../../contract/fault-routes.js'
import type {ApiFault, ApiFaultRequest, FaultList, ListFaultsQuery} from '../../contract/faults.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {cursorPosition, DEFAULT_PAGE_SIZE} from '../http/pagination.js'

/** The name the list's cursors are sealed for (http/pagination.ts): they open for this list alone. */
const CURSOR_LIST = 'faults'

function refuse(field: string, message: string): never {
  throw new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${message}`, {
    field,
    issues: [{path: field, code: 'invalid_fault', message}],
  })
}

/**
 * Add an API fault of the partner's, after the checks its schema cannot make alone: a route that
 * matches an endpoint of the table, and one effect at least, with no answer that contradicts another.
 */
export function addApiFault(
  {faults}: Pick<SandboxContext, 'faults'>,
  partnerId: string,
  input: ApiFaultRequest,
): ApiFault {
  const parsed = parseRoutePattern(input.route)
  if (!parsed.ok) refuse('route', parsed.message)
  if (input.status === undefined && input.drop === undefined && input.latency === undefined) {
    refuse('status', 'a fault needs an effect: status, latency or drop')
  }
  if (input.status !== undefined && input.drop !== undefined) {
    refuse('drop', 'a fault either answers a status or drops the connection, not both')
  }
  if (input.latency !== undefined && input.latency.minMs > input.latency.maxMs) {
    refuse('latency', 'minMs must not exceed maxMs')
  }
  if (input.retryAfterSeconds !== undefined && input.status !== 429 && input.status !== 503) {
    refuse('retryAfterSeconds', 'Retry-After goes with status 429 or 503')
  }
  return faults.addApi(partnerId, input, parsed.pattern, new Date())
}

/** A page of the partner's faults, oldest first, as every list of the sandbox pages. */
export function listFaults(
  {faults, cursors}: Pick<SandboxContext, 'faults' | 'cursors'>,
  partnerId: string,
  query: ListFaultsQuery,
): FaultList {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE
  const after = query.cursor === undefined ? 0 : cursorPosition(cursors, CURSOR_LIST, partnerId, query.cursor)
  const found = faults.after(partnerId, after, limit + 1)
  const shown = found.slice(0, limit)
  const last = shown.at(-1)
  const hasMore = found.length > limit && last !== undefined
  return {
    faults: shown.map((f) => f.fault),
    hasMore,
    nextCursor: hasMore ? cursors.seal(CURSOR_LIST, partnerId, last.seq) : null,
  }
}
