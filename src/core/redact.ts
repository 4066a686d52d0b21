import {redactCredentials} from '../contract/redaction.js'

const SECRET_KEYS =
  /^(authorization|proxy-authorization|x-service-signature|cookie|set-cookie|x-api-key|api-key|apikey|x-auth-token|x-access-token|api_secret|apiSecret|secret|secretKey|secret_key|access_token|accessToken|token|refresh_token|password|signing_secret|signingSecret)$/i

// Header names whose value is a credential whatever it looks like. Idempotency-Key is not one.
const SECRET_HEADER = /(auth|cookie|token|secret|password|passwd|session|signature|api-?key)/i

/** Whether a header (by name) carries a credential, so its value is never logged. */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name.trim()) && !/^idempotency-key$/i.test(name.trim())
}

/**
 * Replace every credential-looking substring with a placeholder that keeps its kind visible: the
 * redaction every log applies, the sandbox's too (src/contract/redaction.ts).
 */
export const redactText: (text: string) => string = redactCredentials

// Card and account numbers: shown as their last four digits wherever payctl logs a body.
const NUMBER_KEYS = /^(number|pan|card_?number|account_?number|routing_?number)$/i
const CARD_SECRET_KEYS = /^(cvc|cvv|cvc2|cvv2)$/i

/** `4242424242424242` → `•••• 4242`. */
export function maskNumber(digits: string): string {
  return `•••• ${digits.slice(-4)}`
}

/** Deep-copy a value with secret fields and credential-shaped strings redacted, card and account numbers masked. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value)
  if (Array.isArray(value)) return value.map(redactValue)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if ((SECRET_KEYS.test(k) || CARD_SECRET_KEYS.test(k)) && v != null) out[k] = '[REDACTED]'
      else if (NUMBER_KEYS.test(k) && typeof v === 'string' && /^\d[\d -]{7,22}\d$/.test(v))
        out[k] = maskNumber(v.replace(/\D/g, ''))
      else out[k] = redactValue(v)
    }
    return out
  }
  return value
}

/** Redact a header map for logging. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(headers)) {
    out[name] = value != null && isSecretHeader(name) ? '[REDACTED]' : redactValue(value)
  }
  return out
}
