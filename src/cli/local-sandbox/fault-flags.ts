import {Flags} from '@oclif/core'
import {
  type DeliveryFaultSettings,
  FAULT_STATUSES,
  type Fault,
  MAX_DELIVERY_DELAY_MS,
  MAX_FAIL_FIRST,
  MAX_FAULT_LATENCY_MS,
  MAX_FAULT_SEED,
  MAX_REORDER,
  parseRoutePattern,
} from '../../contract/index.js'
import {usageError} from '../../core/errors.js'
import type {Column} from '../rendering/output.js'

/**
 * The flags of faults on demand (`sandbox faults add`, `webhooks faults add`, `webhooks listen`),
 * each checked when it is parsed, before anything is sent: a bad value is a usage error (exit 2)
 * naming its flag.
 */

function bad(flag: string, message: string, value: string): never {
  throw usageError(`--${flag} ${message}; got "${value}"`, 'INVALID_FLAG', {flag: `--${flag}`, value})
}

const UNITS_MS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000}

/** `250ms`, `2s`, `1.5s`, `2m` → milliseconds, at most `maxMs`. */
export function parseMs(text: string, flag: string, maxMs: number): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/i.exec(text)
  if (m === null) bad(flag, 'is not a duration: use e.g. 250ms, 2s or 1.5s', text)
  const ms = Math.round(Number(m[1]) * (UNITS_MS[m[2]!.toLowerCase()] ?? 1))
  if (ms > maxMs) bad(flag, `must be at most ${maxMs / 1000} s`, text)
  return ms
}

/** `0.2` or `20%` → a share from 0 to 1. */
export function parseRate(text: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text)
  const rate = m === null ? Number.NaN : Number(m[1]) / (m[2] === '%' ? 100 : 1)
  if (!(rate >= 0 && rate <= 1)) bad(flag, 'must be a share from 0 to 1 (0.2, or 20%)', text)
  return rate
}

function integer(text: string, flag: string, min: number, max: number): number {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
  if (!(Number.isSafeInteger(n) && n >= min && n <= max))
    bad(flag, `must be a whole number from ${min} to ${max}`, text)
  return n
}

const rateFlag = (flag: string, summary: string) =>
  Flags.string({summary, parse: async (v) => String(parseRate(v, flag))})
export const seedFlag = Flags.string({
  summary: 'seed of the fault’s choices, for a reproducible sequence (default: random, shown by faults list)',
  parse: async (v) => String(integer(v, 'seed', 0, MAX_FAULT_SEED)),
})

/** The flags of `sandbox faults add`. */
export const apiFaultFlags = {
  route: Flags.string({
    summary: "the route to hit: 'METHOD /v1/path' as in the endpoint table, METHOD may be *",
    required: true,
    parse: async (value) => {
      const parsed = parseRoutePattern(value)
      if (!parsed.ok)
        throw usageError(`--route: ${parsed.message}`, 'UNKNOWN_ROUTE', {flag: '--route', value})
      return parsed.pattern.route
    },
  }),
  status: Flags.string({
    summary: 'answer with this status instead of running the request: 503, 500 or 429 (with Retry-After)',
    helpValue: FAULT_STATUSES.join('|'),
    parse: async (v) => {
      if (!(FAULT_STATUSES as readonly number[]).includes(Number(v)))
        bad('status', `must be ${FAULT_STATUSES.join(', ')}`, v)
      return v
    },
  }),
  'retry-after': Flags.string({
    summary: 'Retry-After of a 429 or 503, e.g. 1s or 30s (default 1s)',
    parse: async (v) => String(Math.ceil(parseMs(v, 'retry-after', 3_600_000) / 1000)),
  }),
  latency: Flags.string({
    summary: `add this latency before the request runs: 2s, or a range 100ms..2s (at most ${MAX_FAULT_LATENCY_MS / 1000} s)`,
    parse: async (v) => {
      const [min = '', max = min] = v.split('..')
      const range = {
        minMs: parseMs(min, 'latency', MAX_FAULT_LATENCY_MS),
        maxMs: parseMs(max, 'latency', MAX_FAULT_LATENCY_MS),
      }
      if (range.minMs > range.maxMs) bad('latency', 'must go from the shorter to the longer', v)
      return JSON.stringify(range)
    },
  }),
  drop: Flags.string({
    summary:
      'cut the connection without an answer: before the request runs, or after its change is committed',
    helpValue: 'before|after',
    parse: async (v) => {
      if (v !== 'before' && v !== 'after') bad('drop', 'must be before or after', v)
      return v
    },
  }),
  rate: rateFlag('rate', 'share of the matching requests to hit, 0 to 1 (default 1: every one)'),
  times: Flags.string({
    summary: 'inject at most this many times',
    parse: async (v) => String(integer(v, 'times', 1, 1_000_000)),
  }),
  seed: seedFlag,
}

/** The flags of a delivery fault, for `webhooks faults add` and `webhooks listen`. */
export const deliveryFaultFlags = {
  duplicate: rateFlag(
    'duplicate',
    'share of deliveries sent twice (the same event id and body bytes), 0 to 1',
  ),
  reorder: Flags.string({
    summary: 'hold up to this many deliveries (2 s at most) and send them shuffled',
    parse: async (v) => String(integer(v, 'reorder', 2, MAX_REORDER)),
  }),
  delay: Flags.string({
    summary: 'send each delivery this much later, e.g. 3s (at most 1 h)',
    parse: async (v) => String(parseMs(v, 'delay', MAX_DELIVERY_DELAY_MS)),
  }),
  'fail-first': Flags.string({
    summary: 'fail the first N attempts of each event unsent, so the retry schedule runs',
    parse: async (v) => String(integer(v, 'fail-first', 1, MAX_FAIL_FIRST)),
  }),
  'tamper-signature': rateFlag(
    'tamper-signature',
    'share of attempts sent with a signature that does not verify, 0 to 1',
  ),
}

type DeliveryFlagValues = {[K in keyof typeof deliveryFaultFlags]?: string | undefined}

/** The delivery-fault settings the flags give; undefined when none is given. */
export function deliveryFaultsFrom(f: DeliveryFlagValues, seed?: string): DeliveryFaultSettings | undefined {
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v))
  const settings: DeliveryFaultSettings = {
    duplicate: num(f.duplicate),
    reorder: num(f.reorder),
    delayMs: num(f.delay),
    failFirst: num(f['fail-first']),
    tamperSignature: num(f['tamper-signature']),
    seed: num(seed),
  }
  const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined))
  return Object.keys(given).some((k) => k !== 'seed') ? (given as DeliveryFaultSettings) : undefined
}

const pct = (rate: number) => `${Math.round(rate * 1000) / 10} %`
const secs = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`)

/** What a fault does, in a few words: `status 503 (Retry-After 1s) at 20 %`, `duplicate 20 %, delay 3s`. */
export function faultEffect(f: Fault): string {
  if (f.kind === 'api') {
    const latency =
      f.latency === null
        ? ''
        : `latency ${f.latency.minMs === f.latency.maxMs ? secs(f.latency.minMs) : `${secs(f.latency.minMs)}..${secs(f.latency.maxMs)}`}`
    const parts = [
      latency,
      f.status === null
        ? ''
        : `status ${f.status}${f.retryAfterSeconds === null ? '' : ` (Retry-After ${f.retryAfterSeconds}s)`}`,
      f.drop === null ? '' : `drop ${f.drop}`,
    ]
    return `${parts.filter((p) => p !== '').join(', ')}${f.rate < 1 ? ` at ${pct(f.rate)}` : ''}`
  }
  return [
    f.duplicate === null ? '' : `duplicate ${pct(f.duplicate)}`,
    f.reorder === null ? '' : `reorder ${f.reorder}`,
    f.delayMs === null ? '' : `delay ${secs(f.delayMs)}`,
    f.failFirst === null ? '' : `fail first ${f.failFirst}`,
    f.tamperSignature === null ? '' : `tamper signature ${pct(f.tamperSignature)}`,
  ]
    .filter((p) => p !== '')
    .join(', ')
}

const targetOf = (f: Fault) =>
  f.kind === 'api'
    ? f.route
    : f.webhookId !== null
      ? `webhook ${f.webhookId}`
      : `listen session ${f.listenSessionId}`

export const faultColumns: Column<Fault>[] = [
  {header: 'ID', get: (f) => f.id},
  {header: 'ON', get: targetOf},
  {header: 'EFFECT', get: faultEffect},
  {header: 'INJECTED', get: (f) => String(f.injected)},
  {header: 'LEFT', get: (f) => (f.kind === 'api' && f.remaining !== null ? String(f.remaining) : '')},
  {header: 'SEED', get: (f) => String(f.seed)},
]

/** One line about a fault just added: `flt_… on POST /v1/transactions: status 503 at 20 % (seed 42)`. */
export function faultLine(f: Fault): string {
  return `${targetOf(f)}: ${faultEffect(f)} (seed ${f.seed})`
}
