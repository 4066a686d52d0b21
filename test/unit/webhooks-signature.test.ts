import {createHmac} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {
  computeSignature,
  signatureHeader,
  verifySignature,
} from '../../src/contract/webhook-signing/signature.js'
import {closestEventName, isEventSelector, selectsEvent} from '../../src/contract/webhooks.js'
import type {PayctlError} from '../../src/core/errors.js'
import {parseEventName, parseEventSelectors, verifyOrThrow} from '../../src/core/webhooks/index.js'
import {maxAttempts, nextAttemptAt, RETRY_DELAYS_MS} from '../../src/sandbox/webhooks/schedule.js'
import {independentlyVerify} from '../helpers/webhooks-receiver.js'

const SECRET = 'whsec_test_0123456789abcdefghijklmnopqrstuv'
const OTHER = 'whsec_other_0123456789abcdefghijklmnopqrstu'
const BODY =
  '{"id":"evt_1","event":"wallet.created","data":{"amount":12345678901234567890,"note":"café ☕"},"timestamp":"2025-01-01T00:00:00.000Z"}'
const T = 1_735_689_600

describe('signing', () => {
  it('writes t=<seconds>,v1=<64 lowercase hex> with no spaces, over "<t>.<body bytes>" keyed by the whole secret', () => {
    const header = signatureHeader(BODY, [SECRET], T)
    expect(header).toMatch(/^t=1735689600,v1=[0-9a-f]{64}$/)
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`, 'utf8').digest('hex')
    expect(header).toBe(`t=${T},v1=${expected}`)
    expect(computeSignature(SECRET, T, Buffer.from(BODY))).toBe(expected)
  })

  it('signs with each secret in order, and an independent verifier accepts either', () => {
    const header = signatureHeader(BODY, [SECRET, OTHER], T)
    expect(header.split(',')).toHaveLength(3)
    expect(independentlyVerify(Buffer.from(BODY), header, SECRET)).toBe(true)
    expect(independentlyVerify(Buffer.from(BODY), header, OTHER)).toBe(true)
    expect(independentlyVerify(Buffer.from(`${BODY} `), header, SECRET)).toBe(false)
  })

  it('round-trips through verify for strings and bytes alike', () => {
    const header = signatureHeader(BODY, [SECRET], T)
    for (const payload of [BODY, Buffer.from(BODY), new Uint8Array(Buffer.from(BODY))]) {
      expect(verifySignature(payload, header, SECRET, {now: T + 10})).toEqual({
        ok: true,
        timestamp: T,
        ageSeconds: 10,
        secretIndex: 0,
      })
    }
    expect(verifySignature(BODY, signatureHeader(BODY, [OTHER, SECRET], T), [SECRET], {now: T}).ok).toBe(true)
    expect(verifySignature(BODY, header, [OTHER, SECRET], {now: T})).toMatchObject({ok: true, secretIndex: 1})
  })
})

describe('verification failures each say what went wrong', () => {
  const header = signatureHeader(BODY, [SECRET], T)
  const verify = (h: string | undefined, opts: {body?: string; secret?: string; now?: number} = {}) =>
    verifySignature(opts.body ?? BODY, h, opts.secret ?? SECRET, {now: opts.now ?? T})

  it('no header', () => {
    for (const h of [undefined, '', '   ']) {
      const r = verify(h)
      expect(r).toMatchObject({ok: false, reason: 'missing_header'})
      if (!r.ok) expect(r.message).toContain('no x-service-signature header')
    }
  })

  it('an unparsable header', () => {
    for (const [h, why] of [
      ['garbage', '"garbage" is not a key=value pair'],
      [`v1=${'a'.repeat(64)}`, 'no t= timestamp'],
      ['t=yesterday,v1=ab', 't=yesterday is not a Unix timestamp'],
      [`t=${T},t=${T},v1=${'a'.repeat(64)}`, 'more than one t='],
      [`t=${T},v1=xyz`, 'not a 64-character hex'],
      [`t=${T},,v1=${'a'.repeat(64)}`, 'is not a key=value pair'],
    ] as const) {
      const r = verify(h)
      expect(r, h).toMatchObject({ok: false, reason: 'malformed_header'})
      if (!r.ok) expect(r.message).toContain(why)
    }
  })

  it('no v1 signature, naming the schemes it found', () => {
    const r = verify(`t=${T},v0=${'a'.repeat(64)}`)
    expect(r).toMatchObject({ok: false, reason: 'no_v1_signature', timestamp: T})
    if (!r.ok) expect(r.message).toContain('found only v0')
  })

  it('ignores schemes it does not know when a v1 matches', () => {
    const v1 = header.split(',')[1]
    expect(verify(`t=${T},v0=deadbeef,v2=${'b'.repeat(64)},${v1}`).ok).toBe(true)
    // Spaces around the parts are tolerated when reading (never written).
    expect(verify(`t=${T}, ${v1}`).ok).toBe(true)
    // Any v1 may match: one that cannot be a signature is passed over, and an empty unknown scheme too.
    expect(verify(`t=${T},v1=deadbeef,${v1},v0=`).ok).toBe(true)
    expect(verify(`t=${T},v1=deadbeef,v1=${'a'.repeat(64)}`)).toMatchObject({ok: false, reason: 'no_match'})
  })

  it('no match: hints at the wrong secret or a re-serialised body', () => {
    const wrongSecret = verify(header, {secret: OTHER})
    expect(wrongSecret).toMatchObject({ok: false, reason: 'no_match'})
    if (!wrongSecret.ok) {
      expect(wrongSecret.message).toContain('secret')
      expect(wrongSecret.message).toContain('re-serialising')
    }
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2)
    expect(verify(header, {body: reserialised})).toMatchObject({ok: false, reason: 'no_match'})
  })

  it('no match: recognises a trailing newline added to the payload', () => {
    const r = verify(header, {body: `${BODY}\n`})
    expect(r).toMatchObject({ok: false, reason: 'no_match'})
    if (!r.ok) expect(r.message).toContain('trailing newline')
  })

  it('a timestamp outside the tolerance, in the past or the future, only once the signature matches', () => {
    const past = verify(header, {now: T + 301})
    expect(past).toMatchObject({ok: false, reason: 'timestamp_out_of_tolerance'})
    if (!past.ok) expect(past.message).toContain('301 s old (tolerance 300 s)')
    const future = verify(header, {now: T - 301})
    expect(future).toMatchObject({ok: false, reason: 'timestamp_out_of_tolerance'})
    if (!future.ok) expect(future.message).toContain('301 s in the future')
    expect(verify(header, {now: T + 300}).ok).toBe(true)
    expect(verify(header, {now: T - 300}).ok).toBe(true)
    expect(verify(header, {now: T + 301, secret: OTHER})).toMatchObject({reason: 'no_match'})
    expect(verifySignature(BODY, header, SECRET, {now: T + 3600, toleranceSeconds: 0}).ok).toBe(true)
    expect(verifySignature(BODY, header, SECRET, {now: T + 61, toleranceSeconds: 60}).ok).toBe(false)
  })

  it('maps each failure to a stable error code for the CLI', () => {
    const code = (h: string, secret = SECRET) => {
      try {
        verifyOrThrow(Buffer.from(BODY), h, secret, {now: T})
        return 'valid'
      } catch (err) {
        return (err as PayctlError).code
      }
    }
    expect(code(header)).toBe('valid')
    expect(code('')).toBe('SIGNATURE_MISSING')
    expect(code('nonsense')).toBe('SIGNATURE_MALFORMED')
    expect(code(`t=${T}`)).toBe('SIGNATURE_NO_V1')
    expect(code(header, OTHER)).toBe('SIGNATURE_MISMATCH')
    expect(code(signatureHeader(BODY, [SECRET], T - 1000))).toBe('SIGNATURE_TIMESTAMP_OUT_OF_TOLERANCE')
  })
})

describe('event names', () => {
  it('accepts names, prefix.* and *, and suggests the closest name for a typo', () => {
    expect(isEventSelector('wallet.created')).toBe(true)
    expect(isEventSelector('bnplsvc.*')).toBe(true)
    expect(isEventSelector('*')).toBe(true)
    expect(isEventSelector('nothing.*')).toBe(false)
    expect(selectsEvent(['bnplsvc.*'], 'bnplsvc.payment.failed')).toBe(true)
    expect(selectsEvent(['transaction.*'], 'transfer.completed')).toBe(false)
    expect(closestEventName('wallet.create')).toBe('wallet.created')
    expect(closestEventName('Transaction.Complete')).toBe('transaction.completed')
    expect(closestEventName('roundup.procesed')).toBe('roundup.processed')
    expect(closestEventName('completely-unrelated')).toBeUndefined()
  })

  it('refuses an unknown name in a flag with a "did you mean"', () => {
    expect(parseEventSelectors(' wallet.created, transaction.*,wallet.created')).toEqual([
      'wallet.created',
      'transaction.*',
    ])
    expect(() => parseEventSelectors('wallet.created,wallet.create')).toThrow(
      /unknown event "wallet.create"; did you mean "wallet.created"\?/,
    )
    try {
      parseEventName('nope')
      expect.unreachable()
    } catch (err) {
      expect((err as PayctlError).kind).toBe('usage')
      expect((err as PayctlError).suggestions[0]).toContain('walletsvc.card.created')
    }
  })
})

describe('retry schedule', () => {
  it('retries 7 times with ±10% jitter, then gives up', () => {
    expect(maxAttempts('realtime')).toBe(8)
    expect(maxAttempts('fast')).toBe(8)
    expect(RETRY_DELAYS_MS.realtime.slice(0, 4)).toEqual([5_000, 300_000, 1_800_000, 7_200_000])
    expect(nextAttemptAt('realtime', 1, 0, () => 0)).toBe(4_500)
    expect(nextAttemptAt('realtime', 1, 0, () => 1)).toBe(5_500)
    expect(nextAttemptAt('realtime', 2, 1000, () => 0.5)).toBe(301_000)
    expect(nextAttemptAt('fast', 7, 0, () => 0.5)).toBe(60_000)
    expect(nextAttemptAt('fast', 8, 0)).toBeUndefined()
  })
})
