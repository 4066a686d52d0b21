import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {PayctlError} from '../../src/core/index.js'
import {
  computeSignature,
  parseEventSelectors,
  type SignatureFailure,
  signatureHeader,
  verifyOrThrow,
  verifySignature,
} from '../../src/core/webhooks/index.js'
import {independentlyVerify} from '../helpers/webhooks-receiver.js'

/**
 * Bad input: whatever arrives in an x-service-signature header, with whatever body, verification
 * answers with one of its documented results — it never throws for a header or a payload.
 */

const FAILURES: SignatureFailure[] = [
  'missing_header',
  'malformed_header',
  'no_v1_signature',
  'no_match',
  'timestamp_out_of_tolerance',
]
const CODES = new Set([
  'SIGNATURE_MISSING',
  'SIGNATURE_MALFORMED',
  'SIGNATURE_NO_V1',
  'SIGNATURE_MISMATCH',
  'SIGNATURE_TIMESTAMP_OUT_OF_TOLERANCE',
])
const NOW = 1_767_225_600

const secret = fc.oneof(
  fc.string({minLength: 1, maxLength: 40}),
  fc.stringMatching(/^whsec_[A-Za-z0-9+/=_-]{8,48}$/),
  fc.string({unit: 'grapheme', minLength: 1, maxLength: 10}),
)
const payload = fc.oneof(
  fc.string({maxLength: 200}),
  fc.string({unit: 'grapheme', maxLength: 50}),
  fc.uint8Array({maxLength: 300}),
  fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
)
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/)
// Header parts shaped like the real ones, and like everything a proxy or an attacker might send.
const part = fc.oneof(
  fc.integer({min: -10, max: 2 ** 40}).map((t) => `t=${t}`),
  fc.constantFrom(
    't=',
    't=abc',
    't=1e9',
    't=0x10',
    't=1767225600.5',
    't= 1',
    `t=${NOW}`,
    't=99999999999999999999',
  ),
  hex64.map((h) => `v1=${h}`),
  fc.stringMatching(/^[0-9a-fA-F]{0,70}$/).map((h) => `v1=${h}`),
  hex64.map((h) => `v0=${h}`),
  fc.constantFrom('v1=', '=', '', ' ', 'v1', 'v2=abc', ',,', '==', 't==1', 'v1==aa'),
  fc.string({maxLength: 20}),
  fc.string({unit: 'grapheme', maxLength: 8}),
)
const header = fc.oneof(
  fc.array(part, {maxLength: 6}).map((p) => p.join(',')),
  fc.tuple(fc.array(part, {maxLength: 6}), fc.constantFrom(', ', ' ,', ';')).map(([p, sep]) => p.join(sep)),
  fc.array(
    fc.array(part, {maxLength: 3}).map((p) => p.join(',')),
    {maxLength: 3},
  ),
  fc.constantFrom(undefined, null, '', '   ', [] as string[]),
  fc.string({maxLength: 300}),
)
const options = fc.record(
  {
    toleranceSeconds: fc.oneof(fc.integer({min: -5, max: 10_000}), fc.constantFrom(0, Number.NaN, Infinity)),
    now: fc.oneof(fc.integer({min: 0, max: 2 ** 40}), fc.constant(NOW)),
  },
  {requiredKeys: []},
)

function checkResult(result: ReturnType<typeof verifySignature>): void {
  if (result.ok) {
    expect(Number.isSafeInteger(result.timestamp)).toBe(true)
    expect(result.secretIndex).toBeGreaterThanOrEqual(0)
    return
  }
  expect(FAILURES).toContain(result.reason)
  expect(typeof result.message).toBe('string')
  expect(result.message.length).toBeGreaterThan(10)
}

describe('webhook signature verification against random headers and payloads', () => {
  it('any header, payload and secrets: a documented result, never an exception', () => {
    fc.assert(
      fc.property(
        payload,
        header,
        fc.oneof(secret, fc.array(secret, {minLength: 1, maxLength: 3})),
        options,
        (body, h, secrets, opts) => {
          checkResult(verifySignature(body, h as string, secrets, opts))
        },
      ),
      {numRuns: 5000},
    )
  })

  it('verifyOrThrow, behind `webhooks verify`, fails only with one of its stable codes', () => {
    fc.assert(
      fc.property(payload, fc.string({maxLength: 200}), secret, options, (body, h, s, opts) => {
        const bytes = typeof body === 'string' ? Buffer.from(body) : body
        try {
          expect(verifyOrThrow(bytes, h, s, opts).valid).toBe(true)
        } catch (err) {
          expect(err).toBeInstanceOf(PayctlError)
          expect(CODES).toContain((err as PayctlError).code)
          expect((err as PayctlError).exitCode).toBe(1)
        }
      }),
      {numRuns: 2000},
    )
  })

  it('a genuine signature verifies, also among unknown schemes, junk spacing and other secrets, and agrees with an independent verifier', () => {
    fc.assert(
      fc.property(
        payload,
        fc.array(secret, {minLength: 1, maxLength: 3}),
        fc.integer({min: 0, max: 2 ** 33}),
        fc.array(
          hex64.map((h) => `v0=${h}`),
          {maxLength: 2},
        ),
        (body, secrets, t, extra) => {
          const signed = signatureHeader(body, secrets, t)
          const parts = [...signed.split(','), ...extra].map((p, i) => (i % 2 ? ` ${p} ` : p))
          const result = verifySignature(body, parts.join(','), secrets.at(-1)!, {toleranceSeconds: 0})
          expect(result).toMatchObject({ok: true, timestamp: t})
          const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body)
          expect(independentlyVerify(bytes, signed, secrets[0]!)).toBe(true)
        },
      ),
      {numRuns: 1500},
    )
  })

  it('any change to the body, the timestamp or the secret is no_match', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({minLength: 1, maxLength: 200}),
        fc.nat(),
        fc.integer({min: 1, max: 255}),
        secret,
        fc.integer({min: 1, max: 2 ** 33}),
        (body, at, flip, s, t) => {
          const h = signatureHeader(body, [s], t)
          const changed = Uint8Array.from(body)
          changed[at % changed.length]! ^= flip
          // A trailing CR/LF is recognised and hinted at, but still refused.
          expect(verifySignature(changed, h, s, {toleranceSeconds: 0})).toMatchObject({
            ok: false,
            reason: 'no_match',
          })
          const later = `t=${t + 1},v1=${computeSignature(s, t, body)}`
          expect(verifySignature(body, later, s, {toleranceSeconds: 0})).toMatchObject({
            ok: false,
            reason: 'no_match',
          })
          expect(verifySignature(body, h, `${s}x`, {toleranceSeconds: 0})).toMatchObject({
            ok: false,
            reason: 'no_match',
          })
        },
      ),
      {numRuns: 1500},
    )
  })

  it('event selectors from a flag are known names or an UNKNOWN_EVENT usage error', () => {
    const selector = fc.oneof(
      fc.constantFrom('*', 'wallet.created', 'bnplsvc.*', 'transaction.*', 'wallet.creatd', 'WALLET.CREATED'),
      fc.string({maxLength: 20}),
    )
    fc.assert(
      fc.property(fc.array(selector, {maxLength: 4}), fc.constantFrom(',', ', ', ',,'), (parts, sep) => {
        try {
          const selectors = parseEventSelectors(parts.join(sep))
          expect(selectors.length).toBeGreaterThan(0)
        } catch (err) {
          expect(err).toBeInstanceOf(PayctlError)
          expect((err as PayctlError).code).toBe('UNKNOWN_EVENT')
          expect((err as PayctlError).exitCode).toBe(2)
        }
      }),
      {numRuns: 1500},
    )
  })
})
