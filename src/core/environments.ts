import {isLocalUrl} from '../contract/loopback.js'
import {PayctlError} from './errors.js'

/** The three kinds of environment payctl tells apart; a custom environment name maps to one. */
export type EnvironmentKind = 'local' | 'sandbox' | 'production'

export const DEFAULT_LOCAL_URL = 'http://127.0.0.1:4010'

const PRODUCTION_NAMES = new Set(['production', 'prod', 'live'])

/**
 * Production by name (`production`, `prod`, `live`) whatever the URL; otherwise local when the
 * base URL stays on this machine (loopback or 0.0.0.0, any spelling) or the name is `local`; otherwise sandbox.
 */
export function environmentKind(environment: string, baseUrl: string | undefined): EnvironmentKind {
  if (PRODUCTION_NAMES.has(environment.toLowerCase())) return 'production'
  if (environment === 'local' || (baseUrl !== undefined && isLocalUrl(baseUrl))) return 'local'
  return 'sandbox'
}

// A client sends the same token with every request, and looks at its claims twice per request.
let lastDecoded: {token: string; payload: Readonly<Record<string, unknown>> | undefined} | undefined

/**
 * Decode a JWT's payload without verifying it (only to read claims such as `env` and `exp`). The
 * result is shared between calls for the same token: read it, do not change it.
 */
export function decodeJwtPayload(token: string): Readonly<Record<string, unknown>> | undefined {
  if (lastDecoded?.token === token) return lastDecoded.payload
  const part = token.split('.')[1]
  if (!part) return undefined
  let payload: Record<string, unknown> | undefined
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    payload = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined
  } catch {
    payload = undefined
  }
  lastDecoded = {token, payload}
  return payload
}

/**
 * Refuse, before anything is sent, a test credential (`test_…`, `pk_test_…`, `sk_test_…`, a
 * sandbox token) bound for production, or a live one (`live_…`, `pk_live_…`, `sk_live_…`) bound
 * for a sandbox or local URL.
 */
export function assertCredentialFitsEnvironment(
  bearer: string,
  environment: string,
  kind: EnvironmentKind,
  baseUrl: string,
): void {
  const isTestKey = /^(?:pk_|sk_)?test_/.test(bearer)
  const isLiveKey = /^(?:pk_|sk_)?live_/.test(bearer)
  const isSandboxToken = !isTestKey && !isLiveKey && decodeJwtPayload(bearer)?.env === 'sandbox'
  if (kind === 'production' && (isTestKey || isSandboxToken)) {
    throw new PayctlError({
      kind: 'safety',
      code: 'TEST_CREDENTIAL_IN_PRODUCTION',
      message: `refusing to send a ${isTestKey ? 'test credential' : 'sandbox token'} to the production environment "${environment}" (${baseUrl}); it would be rejected there`,
      suggestions: [
        `Log in to ${environment} with live credentials: payctl auth login --env ${environment} --secret-key live_… (or --api-key, --api-secret, --partner-id)`,
      ],
    })
  }
  if (kind !== 'production' && isLiveKey) {
    throw new PayctlError({
      kind: 'safety',
      code: 'LIVE_KEY_OUTSIDE_PRODUCTION',
      message: `refusing to send a live credential to the ${kind} environment "${environment}" (${baseUrl}); live keys move real money and belong to production only`,
      suggestions: ['Use a test_ key here, or: payctl auth login --env production --base-url <url>'],
    })
  }
}
