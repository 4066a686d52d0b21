import {z} from 'zod'

/**
 * Every error code the service returns, with its HTTP status. The first block is the spec's own
 * table; the second holds the codes the sandbox adds where the spec is silent (documented in
 * docs/sandbox.md).
 */
export const ERROR_STATUS = {
  INVALID_CREDENTIALS: 401,
  TOKEN_EXPIRED: 401,
  TOKEN_INVALID: 401,
  INSUFFICIENT_SCOPE: 403,
  RATE_LIMITED: 429,
  INVALID_API_KEY: 401,
  INSUFFICIENT_PERMISSIONS: 403,
  invalid_api_key: 401,
  expired_token: 401,
  insufficient_permissions: 403,
  missing_authorization: 401,
  INVALID_CURRENCY: 400,
  INVALID_USER_ID: 400,
  WALLET_EXISTS: 409,
  INSUFFICIENT_FUNDS: 402,
  INSUFFICIENT_BALANCE: 402,
  CARD_DECLINED: 402,
  INVALID_PAYMENT_METHOD: 400,
  PAYMENT_METHOD_NOT_FOUND: 404,
  AMOUNT_TOO_SMALL: 400,
  AMOUNT_TOO_LARGE: 400,
  DUPLICATE_TRANSACTION: 409,
  RATE_LIMIT_EXCEEDED: 429,
  // Added by the sandbox where the spec names a status but no code.
  VALIDATION_ERROR: 400,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL_ERROR: 500,
  METHOD_NOT_ALLOWED: 405,
  // Money movement (docs/money.md).
  WALLET_NOT_ACTIVE: 422,
  TRANSACTION_NOT_REFUNDABLE: 422,
  INVALID_STATE_TRANSITION: 422,
  CURRENCY_MISMATCH: 400,
  LINK_TOKEN_INVALID: 400,
  // Round-ups and buy now, pay later (docs/roundups.md, docs/bnpl.md).
  INVALID_DESTINATION_ACCOUNT: 400,
  ROUNDUP_CURRENCY_LOCKED: 422,
  ROUNDUP_DESTINATION_REQUIRED: 422,
  NO_PENDING_ROUNDUPS: 422,
  BNPL_DECLINED: 422,
  // Webhooks (docs/webhooks.md).
  LISTEN_SESSION_LIMIT: 429,
  WEBHOOK_LIMIT: 422,
  ACCOUNT_LIMIT: 422,
  // Partners side by side (docs/sandbox.md).
  PARTNER_EXISTS: 409,
  // Snapshots (docs/sandbox.md#snapshots).
  SNAPSHOT_INVALID: 400,
  SNAPSHOT_CONFLICT: 409,
  SNAPSHOT_NOT_SAVED: 507,
  SNAPSHOT_QUOTA_EXCEEDED: 422,
  // Injected by a fault on demand (docs/sandbox.md#faults); never answered otherwise.
  SERVICE_UNAVAILABLE: 503,
  // A partner's live faults are at their cap (docs/sandbox.md#faults).
  FAULT_LIMIT: 422,
  // The trigger ran but recorded no such event (docs/webhooks.md#webhooks-trigger).
  TRIGGER_NOT_RECORDED: 422,
  // The browser inspector (docs/inspector.md#security): a page's data without a session, a change
  // without the session's CSRF token.
  SIGN_IN_REQUIRED: 401,
  CSRF_TOKEN_INVALID: 403,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/** What an auth error code says about a call. */
export interface AuthError {
  /**
   * The body it takes whatever the endpoint: the auth shape of its family (Variant A's or B's), or
   * `own`, the shape of the endpoint that answers it.
   */
  shape: 'AuthErrorA' | 'AuthErrorB' | 'own'
  /** What was refused: the credentials (logging in again mends it), a permission, or the rate. */
  refuses: 'credentials' | 'permission' | 'rate'
  /** Whether any authenticated call can answer it, whatever its own errors. */
  everyCall: boolean
  /** About a Variant A access token, which a new token mends (what the token endpoint answers). */
  token?: true
}

/**
 * The two auth error families, Variant A's (upper case) and Variant B's (lower case), and the
 * codes an endpoint answers in its own shape: the one table the OpenAPI document, the errors every
 * authenticated call can return, the client's token renewal and the CLI's advice read.
 */
export const AUTH_ERRORS = {
  INVALID_CREDENTIALS: {shape: 'AuthErrorA', refuses: 'credentials', everyCall: false},
  TOKEN_EXPIRED: {shape: 'AuthErrorA', refuses: 'credentials', everyCall: true, token: true},
  TOKEN_INVALID: {shape: 'AuthErrorA', refuses: 'credentials', everyCall: true, token: true},
  INSUFFICIENT_SCOPE: {shape: 'AuthErrorA', refuses: 'permission', everyCall: true},
  RATE_LIMITED: {shape: 'AuthErrorA', refuses: 'rate', everyCall: false},
  INVALID_API_KEY: {shape: 'own', refuses: 'credentials', everyCall: false},
  INSUFFICIENT_PERMISSIONS: {shape: 'own', refuses: 'permission', everyCall: false},
  invalid_api_key: {shape: 'AuthErrorB', refuses: 'credentials', everyCall: true},
  expired_token: {shape: 'AuthErrorB', refuses: 'credentials', everyCall: true},
  insufficient_permissions: {shape: 'AuthErrorB', refuses: 'permission', everyCall: true},
  missing_authorization: {shape: 'AuthErrorB', refuses: 'credentials', everyCall: true},
} as const satisfies Partial<Record<ErrorCode, AuthError>>

/** The auth error codes for which `test` holds, in the table's order. */
export function authCodes(test: (e: AuthError) => boolean): ErrorCode[] {
  return (Object.entries(AUTH_ERRORS) as [ErrorCode, AuthError][]).filter(([, e]) => test(e)).map(([c]) => c)
}

/** Category string of the resource error shape (`error` at top level), by code. */
export function errorCategory(code: string): string {
  switch (code) {
    case 'WALLET_EXISTS':
      return 'duplicate_wallet'
    case 'INSUFFICIENT_FUNDS':
    case 'INSUFFICIENT_BALANCE':
      return 'insufficient_funds'
    case 'CARD_DECLINED':
      return 'card_declined'
    case 'DUPLICATE_TRANSACTION':
      return 'duplicate_request'
    case 'NOT_FOUND':
    case 'PAYMENT_METHOD_NOT_FOUND':
      return 'not_found'
    case 'RATE_LIMIT_EXCEEDED':
    case 'RATE_LIMITED':
      return 'rate_limit_error'
    case 'INTERNAL_ERROR':
    case 'SERVICE_UNAVAILABLE':
      return 'api_error'
    default: {
      const status = (ERROR_STATUS as Record<string, number>)[code] ?? 400
      if (status === 401) return 'unauthorized'
      if (status === 403) return 'forbidden'
      if (status === 405) return 'method_not_allowed'
      return 'validation_error'
    }
  }
}

const Details = z.record(z.string(), z.unknown())

/** Overview shape (Variant A): `success` false, `error` {code, message, details}, `meta`. */
export const OverviewErrorSchema = z.object({
  success: z.literal(false),
  error: z.object({code: z.string(), message: z.string(), details: Details.optional()}),
  meta: z.object({requestId: z.string(), timestamp: z.string()}),
})

/** Auth shape (Variant A): `error` {code, message, details} and `request_id`. */
export const AuthErrorASchema = z.object({
  error: z.object({code: z.string(), message: z.string(), details: Details.optional()}),
  request_id: z.string(),
})

/** Auth shape (Variant B): `error` {code, message, type}. */
export const AuthErrorBSchema = z.object({
  error: z.object({code: z.string(), message: z.string(), type: z.string()}),
})

/** Resource shape: top-level `error` category, `message`, `code`, optional `details`. */
export const ResourceErrorSchema = z.object({
  error: z.string(),
  message: z.string(),
  code: z.string(),
  details: Details.optional(),
})

/** Any of the four error shapes the service uses. */
export const AnyErrorBodySchema = z.union([
  OverviewErrorSchema,
  AuthErrorASchema,
  AuthErrorBSchema,
  ResourceErrorSchema,
])
export type AnyErrorBody = z.infer<typeof AnyErrorBodySchema>

/** The error fields every shape carries, once normalised. */
export interface NormalisedError {
  code: string
  message: string
  details?: Record<string, unknown> | undefined
  type?: string | undefined
  requestId?: string | undefined
}

/**
 * Reduce any of the four error shapes to code, message, details and request id. Lenient on
 * purpose: an error body missing `meta`, `type` or `details` still yields its code, so the
 * client can react to it (a `TOKEN_EXPIRED` must trigger a renewal whatever the shape).
 */
export function normaliseErrorBody(body: unknown): NormalisedError | undefined {
  if (body === null || typeof body !== 'object') return undefined
  const b = body as Record<string, unknown>
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined)
  const record = (v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  const meta = record(b.meta)
  const requestId = text(meta?.requestId) ?? text(b.request_id) ?? text(b.requestId)
  const inner = record(b.error)
  if (inner && text(inner.code)) {
    return {
      code: text(inner.code)!,
      message: text(inner.message) ?? text(inner.code)!,
      details: record(inner.details),
      type: text(inner.type),
      requestId,
    }
  }
  if (text(b.code)) {
    return {
      code: text(b.code)!,
      message: text(b.message) ?? text(b.code)!,
      details: record(b.details),
      type: text(b.error),
      requestId,
    }
  }
  return undefined
}
