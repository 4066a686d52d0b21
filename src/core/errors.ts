/** Stable process exit codes, documented in docs/output.md. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 4,
  rateLimited: 5,
  interrupted: 130,
} as const

/** What went wrong, coarsely: decides the exit code and the kind of advice a user gets. */
export type ErrorKind =
  | 'api' // the service answered with an error
  | 'auth' // credentials missing, refused or expired
  | 'rate_limited' // still 429 after every retry
  | 'network' // no answer: refused, reset, timed out
  | 'invalid_response' // the service answered something the contract does not allow
  | 'usage' // the caller's input is wrong before anything is sent
  | 'config' // the profile file or environment is unusable
  | 'safety' // refused to send a credential to the wrong kind of environment
  | 'interrupted' // the user pressed Ctrl-C
  | 'output' // the command did its work, but its output could not be made (a --jq expression failed on it)

export interface PayctlErrorOptions {
  kind: ErrorKind
  code: string
  message: string
  status?: number | undefined
  details?: Record<string, unknown> | undefined
  requestId?: string | undefined
  suggestions?: string[] | undefined
  cause?: unknown
}

/** The one error type of payctl: every failure, from any layer, is one of these. */
export class PayctlError extends Error {
  readonly kind: ErrorKind
  readonly code: string
  readonly status: number | undefined
  readonly details: Record<string, unknown> | undefined
  readonly requestId: string | undefined
  suggestions: string[]

  constructor(opts: PayctlErrorOptions) {
    super(opts.message, opts.cause === undefined ? undefined : {cause: opts.cause})
    this.name = 'PayctlError'
    this.kind = opts.kind
    this.code = opts.code
    this.status = opts.status
    this.details = opts.details
    this.requestId = opts.requestId
    this.suggestions = opts.suggestions ?? []
  }

  get exitCode(): number {
    switch (this.kind) {
      case 'usage':
        return EXIT.usage
      case 'auth':
      case 'safety': // a credential that does not belong to the environment: fix the credentials
        return EXIT.auth
      case 'rate_limited':
        return EXIT.rateLimited
      case 'interrupted':
        return EXIT.interrupted
      default:
        return EXIT.error
    }
  }

  /** The machine-readable form printed under `--json`. */
  toJSON(): Record<string, unknown> {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.status === undefined ? {} : {status: this.status}),
        ...(this.details === undefined ? {} : {details: this.details}),
        ...(this.requestId === undefined ? {} : {requestId: this.requestId}),
        ...(this.suggestions.length === 0 ? {} : {suggestions: this.suggestions}),
        exitCode: this.exitCode,
      },
    }
  }
}

export function usageError(message: string, code = 'USAGE', details?: Record<string, unknown>): PayctlError {
  return new PayctlError({kind: 'usage', code, message, details})
}
