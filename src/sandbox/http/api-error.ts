import type {ErrorStyle} from '../../contract/api/endpoint.js'
import type {ResponseShape} from '../../contract/api/envelope.js'
import {ERROR_STATUS, type ErrorCode, errorCategory} from '../../contract/api/error-codes.js'
import {SUPPORTED_CURRENCIES} from '../../contract/money/currencies.js'

type Details = Record<string, unknown>

/** An error the sandbox answers with: a stable code, its status, and details for the body. */
export class ApiError extends Error {
  readonly status: number
  readonly headers: Record<string, string>

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Details,
    options: {headers?: Record<string, string>} = {},
  ) {
    super(message)
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
    this.headers = options.headers ?? {}
  }
}

/**
 * A refused credential. Its variant picks the body shape regardless of the route: a Variant A token
 * fails in the Variant A auth shape, a Variant B key or minted JWT in the Variant B one.
 */
export class AuthFailure extends ApiError {
  /** Whether the credential looks guessed (unknown, or not signed here): counted by the Bearer guard. */
  guess = false

  constructor(
    readonly variant: 'A' | 'B',
    code: ErrorCode,
    message: string,
    details?: Details,
  ) {
    super(code, message, details)
    this.name = 'AuthFailure'
  }
}

/** A currency the sandbox does not support, named where the request gave it. */
export function invalidCurrency(value: string, field = 'currency'): ApiError {
  return new ApiError('INVALID_CURRENCY', `Unsupported currency: ${value}`, {
    field,
    value,
    supported: [...SUPPORTED_CURRENCIES],
  })
}

/** A wallet the caller's partner does not have. */
export function walletNotFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `No wallet ${id}`, {resource: 'wallet', id})
}

export interface RenderedError {
  status: number
  headers: Record<string, string>
  body: Record<string, unknown>
}

export function renderError(
  err: ApiError,
  style: ErrorStyle,
  shape: ResponseShape,
  requestId: string,
): RenderedError {
  const details = err.details ?? {}
  let body: Record<string, unknown>
  if (err instanceof AuthFailure && err.variant === 'B') {
    const type = err.status === 403 ? 'permission_error' : 'authentication_error'
    body = {error: {code: err.code, message: err.message, type}}
  } else if (err instanceof AuthFailure || style === 'auth-a') {
    body = {error: {code: err.code, message: err.message, details}, request_id: requestId}
  } else if (style === 'business' && shape === 'envelope') {
    body = {
      success: false,
      error: {code: err.code, message: err.message, details},
      meta: {requestId, timestamp: new Date().toISOString()},
    }
  } else {
    body = {error: errorCategory(err.code), message: err.message, code: err.code}
    if (err.details !== undefined) body.details = err.details
  }
  return {status: err.status, headers: err.headers, body}
}
