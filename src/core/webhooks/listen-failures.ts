import {PayctlError} from '../errors.js'

/** How a listen link ended or failed, told to the user, and whether to reconnect after it. */

export function closeReason(code: number, reason: string): string {
  if (reason !== '') return reason
  if (code === 1001) return 'the sandbox is shutting down'
  if (code === 1005) return 'the sandbox closed the link'
  if (code === 1006) return 'the connection was cut'
  return `closed with code ${code}`
}

export function describeFailure(err: unknown, baseUrl: string): string {
  if (err instanceof PayctlError && err.kind === 'network') {
    return `could not reach ${baseUrl} (${String(err.details?.errno ?? err.code)})`
  }
  return err instanceof Error ? err.message : String(err)
}

/** What stops a listener from the inside, as a PayctlError (a stack trace helps no user here). */
export function listenFailure(err: unknown): PayctlError {
  if (err instanceof PayctlError) return err
  return new PayctlError({
    kind: 'api',
    code: 'LISTEN_FAILED',
    message: `listen stopped: ${err instanceof Error ? err.message : String(err)}`,
    cause: err,
  })
}

/**
 * Errors worth reconnecting after: no answer, or a server error; anything else is for the user, a
 * refused certificate too (it stays refused until PAYCTL_CA_FILE or the base URL changes).
 */
export function retryable(err: unknown): boolean {
  if (!(err instanceof PayctlError)) return true
  if (err.code === 'CERTIFICATE_UNTRUSTED' || err.code === 'CERTIFICATE_INVALID') return false
  return err.kind === 'network' || err.kind === 'rate_limited' || (err.status ?? 0) >= 500
}
