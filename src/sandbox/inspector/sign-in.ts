import type {ServingContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {RATE_LIMITS} from '../http/rate-limiter.js'
import {sameToken} from './sessions.js'

/** What a sign-in came to: the partner, or why not (and the headers of a refusal). */
export type SignInOutcome =
  | {ok: true; partnerId: string}
  | {ok: false; status: number; problem: string; headers: Record<string, string>}

export type SignIn = (apiKey: unknown, apiSecret: unknown, ip: string) => SignInOutcome

/**
 * Signing in to the inspector: the partner's API key and API secret, checked as the token
 * exchange checks them (in constant time, live keys refused, failures counted per address and key
 * against the same budget), so the form is no easier a way to guess a secret than the API.
 */
export function signInWith(ctx: Pick<ServingContext, 'partners' | 'limiter'>): SignIn {
  return (apiKey, apiSecret, ip) => {
    const key = typeof apiKey === 'string' ? apiKey.trim() : ''
    const secret = typeof apiSecret === 'string' ? apiSecret.trim() : ''
    const subject = `inspector ${ip} ${key}`
    const refuse = (problem: string): SignInOutcome => {
      try {
        return {
          ok: false,
          status: 401,
          problem,
          headers: ctx.limiter.noteFailedAuth(subject, RATE_LIMITS.failedAuthPerMinute),
        }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        return {ok: false, status: err.status, problem: err.message, headers: err.headers}
      }
    }
    if (key === '' || secret === '') return refuse('Give the API key and the API secret')
    if (/^(pk_)?live_/.test(key)) return refuse('Live credentials are not accepted by the sandbox')
    const partner = ctx.partners.byPublicKey(key)
    if (partner === undefined || !sameToken(partner.apiSecret, secret))
      return refuse('Invalid API key or API secret')
    ctx.limiter.forgiveAuth(subject)
    return {ok: true, partnerId: partner.partnerId}
  }
}
