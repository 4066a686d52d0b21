import {createHmac, timingSafeEqual} from 'node:crypto'

/**
 * The webhook signature scheme, used by the sandbox to sign deliveries and by the CLI (and any
 * receiver written against payctl) to verify them:
 *
 *   x-service-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]
 *   v1 = lowercase hex of HMAC-SHA256(key = the whole `whsec_…` secret as UTF-8, `<t>.<raw body bytes>`)
 *
 * The scheme is part of the contract between the service and its receivers, so it lives here, where
 * both the sandbox and the client can use it; it imports nothing but node:crypto.
 */

/** The header that carries a delivery's signature. */
export const SIGNATURE_HEADER = 'x-service-signature'
/** How far a signature's timestamp may be from the verifier's clock, in either direction, by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300

/** The exact bytes of a request body; a string is taken as UTF-8. */
export type Payload = string | Uint8Array

function toBuffer(payload: Payload): Buffer {
  return typeof payload === 'string'
    ? Buffer.from(payload, 'utf8')
    : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
}

/** The current Unix time in whole seconds. */
export function unixSeconds(now = Date.now()): number {
  return Math.floor(now / 1000)
}

/** Lowercase hex HMAC-SHA256 of `<timestamp>.<payload>`, keyed with the whole secret string. */
export function computeSignature(secret: string, timestamp: number, payload: Payload): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(toBuffer(payload))
    .digest('hex')
}

/**
 * The `x-service-signature` value for `payload`: one `v1` per secret, in the order given (during a
 * secret rotation the sandbox passes the new secret first, then the old one).
 */
export function signatureHeader(
  payload: Payload,
  secrets: readonly string[],
  timestamp = unixSeconds(),
): string {
  if (secrets.length === 0) throw new TypeError('signatureHeader needs at least one secret')
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError('signatureHeader needs a timestamp in whole Unix seconds')
  }
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(s, timestamp, payload)}`)].join(',')
}

/** Why a signature was refused; each has its own message and advice. */
export type SignatureFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'no_v1_signature'
  | 'no_match'
  | 'timestamp_out_of_tolerance'

export type VerifyResult =
  | {
      ok: true
      timestamp: number
      /** Seconds between the signature's timestamp and now; negative when it is in the future. */
      ageSeconds: number
      /** Which of the given secrets matched (0 for the first). */
      secretIndex: number
    }
  | {ok: false; reason: SignatureFailure; message: string; timestamp?: number}

export interface VerifyOptions {
  /** Seconds either way; 0 skips the timestamp check (to inspect an old delivery). Default 300. */
  toleranceSeconds?: number
  /** The verifier's clock, in Unix seconds (default: now). */
  now?: number
}

interface ParsedHeader {
  timestamp: number
  v1: Buffer[]
  schemes: string[]
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/
const UNIX_SECONDS = /^\d{1,12}$/

function parseHeader(header: string): ParsedHeader | {error: string} {
  let timestamp: number | undefined
  const v1: Buffer[] = []
  const schemes: string[] = []
  let badV1: string | undefined
  for (const raw of header.split(',')) {
    const part = raw.trim()
    const eq = part.indexOf('=')
    if (eq <= 0) return {error: `"${part}" is not a key=value pair`}
    const key = part.slice(0, eq)
    const value = part.slice(eq + 1)
    if (key === 't') {
      if (timestamp !== undefined) return {error: 'it has more than one t= timestamp'}
      if (!UNIX_SECONDS.test(value)) return {error: `t=${value} is not a Unix timestamp in seconds`}
      timestamp = Number(value)
    } else if (key === 'v1') {
      // Any v1 may match: one that cannot be a signature is passed over, as long as another can.
      if (HEX_SHA256.test(value)) v1.push(Buffer.from(value, 'hex'))
      else badV1 ??= value
    } else {
      // Schemes this verifier does not know (v0, a future v2) are ignored, as the scheme promises.
      schemes.push(key)
    }
  }
  if (timestamp === undefined) return {error: 'it has no t= timestamp'}
  if (v1.length === 0 && badV1 !== undefined) {
    return {error: `v1=${badV1.slice(0, 16)}… is not a 64-character hex HMAC-SHA256`}
  }
  return {timestamp, v1, schemes}
}

function anyMatches(signatures: Buffer[], secrets: readonly string[], t: number, payload: Payload): number {
  for (const [index, secret] of secrets.entries()) {
    const expected = Buffer.from(computeSignature(secret, t, payload), 'hex')
    // Compare against every candidate without stopping early on a match of another length.
    let matched = false
    for (const candidate of signatures) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true
    }
    if (matched) return index
  }
  return -1
}

/** The payload without trailing CR/LF, when it has any (a file saved by an editor, `echo` output). */
function withoutTrailingNewline(payload: Payload): Buffer | undefined {
  const bytes = toBuffer(payload)
  let end = bytes.length
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--
  return end === bytes.length ? undefined : bytes.subarray(0, end)
}

function describeAge(seconds: number): string {
  const abs = Math.abs(seconds)
  return seconds >= 0 ? `${abs} s old` : `${abs} s in the future`
}

/**
 * Check `header` against the exact bytes of `payload` with one or more secrets (any may match).
 * Never throws for bad input: a refusal says which check failed and what usually causes it.
 */
export function verifySignature(
  payload: Payload,
  header: string | readonly string[] | null | undefined,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): VerifyResult {
  const keys = typeof secrets === 'string' ? [secrets] : secrets
  if (keys.length === 0 || keys.some((k) => k === '')) throw new TypeError('verifySignature needs a secret')
  const value = (typeof header === 'string' ? header : (header ?? []).join(',')).trim()
  if (value === '') {
    return {
      ok: false,
      reason: 'missing_header',
      message: `no ${SIGNATURE_HEADER} header: the request was not sent by the service, or something between (a proxy, a framework) dropped the header`,
    }
  }
  const parsed = parseHeader(value)
  if ('error' in parsed) {
    return {
      ok: false,
      reason: 'malformed_header',
      message: `the ${SIGNATURE_HEADER} header cannot be parsed: ${parsed.error}; expected t=<unix seconds>,v1=<hex>[,v1=<hex>…]`,
    }
  }
  const {timestamp} = parsed
  if (parsed.v1.length === 0) {
    const found = parsed.schemes.length > 0 ? ` (found only ${parsed.schemes.join(', ')})` : ''
    return {
      ok: false,
      reason: 'no_v1_signature',
      message: `the ${SIGNATURE_HEADER} header has no v1 signature${found}; v1 is the only scheme this verifier knows`,
      timestamp,
    }
  }
  const secretIndex = anyMatches(parsed.v1, keys, timestamp, payload)
  if (secretIndex < 0) {
    const trimmed = withoutTrailingNewline(payload)
    const hint =
      trimmed !== undefined && anyMatches(parsed.v1, keys, timestamp, trimmed) >= 0
        ? 'it matches the payload without its trailing newline: verify the bytes exactly as received (an editor or echo added the newline)'
        : 'either the secret is not the one this endpoint or listen session signs with (each has its own whsec_… secret; a rotated one is replaced), or the body is not byte-for-byte as sent — verify the raw body before any JSON parsing, since re-serialising changes spacing, key order and number formats'
    return {ok: false, reason: 'no_match', message: `no v1 signature matches: ${hint}`, timestamp}
  }
  const now = options.now ?? unixSeconds()
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const ageSeconds = now - timestamp
  if (tolerance > 0 && Math.abs(ageSeconds) > tolerance) {
    return {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
      message: `the signature matches, but its timestamp t=${timestamp} is ${describeAge(ageSeconds)} (tolerance ${tolerance} s): a replayed or long-delayed delivery, or a clock out of sync`,
      timestamp,
    }
  }
  return {ok: true, timestamp, ageSeconds, secretIndex}
}
