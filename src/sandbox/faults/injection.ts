import {randomInt} from 'node:crypto'
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import type {RoutePattern} from '../../contract/fault-routes.js'
import type {
  ApiFault,
  ApiFaultRequest,
  DeliveryFault,
  DeliveryFaultSettings,
  Fault,
  FaultStatus,
} from '../../contract/faults.js'
import {FAULT_CAP, MAX_FAULT_SEED, SPENT_FAULTS_KEPT} from '../../contract/faults.js'
import {ApiError} from '../http/api-error.js'
import {randomHex} from '../storage/ids.js'

/**
 * Faults on demand (docs/sandbox.md#faults): kept in memory, by the partner that added them. They
 * are test set-up, not records: a restart, `POST /_sandbox/reset` and `DELETE /_sandbox/faults` end
 * them, as does the end of the registration or listen session a delivery fault belongs to. A
 * partner has at most FAULT_CAP live at once, and the newest SPENT_FAULTS_KEPT spent ones.
 */

/** A reproducible sequence of numbers in [0, 1) from a 32-bit seed (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const newFaultId = () => `flt_${randomHex(12)}`
const seedOf = (seed: number | undefined) => seed ?? randomInt(0, MAX_FAULT_SEED)

interface ApiEntry {
  kind: 'api'
  /** Its position among every fault added, for the list's cursors. */
  seq: number
  record: ApiFault
  pattern: RoutePattern
  random: () => number
}

/** What one request meets: latency first, then an answer in place of the operation's, or a cut. */
export interface ApiInjection {
  latencyMs: number
  status?: FaultStatus
  retryAfterSeconds?: number
  drop?: 'before' | 'after'
  faultIds: string[]
  /** For the request log: `latency 1500ms, status 503`. */
  label: string
}

/** A delivery fault of one registration or listen session, with its own sequence of choices. */
export class DeliveryFaultState {
  readonly kind = 'delivery'
  readonly #random: () => number
  /** Attempts failed on purpose, by event: `failFirst` counts per event. */
  readonly #failed = new Map<string, number>()

  constructor(
    readonly record: DeliveryFault,
    /** Its position among every fault added, for the list's cursors. */
    readonly seq: number,
  ) {
    this.#random = seededRandom(record.seed)
  }

  /** Whether a draw at `rate` hits; every call takes one number of the sequence. */
  #hit(rate: number | null): boolean {
    if (rate === null) return false
    const hit = this.#random() < rate
    if (hit) this.record.injected++
    return hit
  }

  /** At fan-out: how long to hold a new delivery back, and whether to send it twice. */
  plan(): {delayMs: number; duplicate: boolean} {
    const delayMs = this.record.delayMs ?? 0
    if (delayMs > 0) this.record.injected++
    return {delayMs, duplicate: this.#hit(this.record.duplicate)}
  }

  /** Before an attempt of `eventId`: fail it unsent (the first `failFirst` of the event), or tamper its signature. */
  attempt(eventId: string): {fail?: string; tamper: boolean} {
    const failFirst = this.record.failFirst ?? 0
    const failed = this.#failed.get(eventId) ?? 0
    if (failed < failFirst) {
      this.#failed.set(eventId, failed + 1)
      this.record.injected++
      return {fail: `fail-first ${failed + 1} of ${failFirst}`, tamper: false}
    }
    return {tamper: this.#hit(this.record.tamperSignature)}
  }

  /** A shuffle of `items` that moves at least one of two or more (a shuffle that changed nothing would prove nothing). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items]
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.#random() * (i + 1))
      ;[out[i], out[j]] = [out[j]!, out[i]!]
    }
    if (out.length > 1 && out.every((item, i) => item === items[i])) out.reverse()
    if (out.length > 1) this.record.injected++
    return out
  }
}

type Entry = ApiEntry | DeliveryFaultState

/** A delivery fault's target: a registration or a listen session. */
export type FaultTarget = {webhookId: string} | {listenSessionId: string}
const targetIdOf = (t: FaultTarget) => ('webhookId' in t ? t.webhookId : t.listenSessionId)
const targetOfRecord = (r: DeliveryFault) => r.webhookId ?? r.listenSessionId
/** Whether a fault may still act: a delivery fault always, an API fault until its `times` are used up. */
const isLive = (e: Entry) => e.kind === 'delivery' || e.record.remaining !== 0

/** Every partner's faults, in the order they were added. */
export class FaultStore {
  readonly #byPartner = new Map<string, Entry[]>()
  /** The position of the newest fault added, of any partner. */
  #seq = 0

  #of(partnerId: string): Entry[] {
    let entries = this.#byPartner.get(partnerId)
    if (entries === undefined) {
      entries = []
      this.#byPartner.set(partnerId, entries)
    }
    return entries
  }

  /** A new API fault of the partner, on the endpoints `pattern` matches; past the cap, 422 FAULT_LIMIT. */
  addApi(partnerId: string, input: ApiFaultRequest, pattern: RoutePattern, now: Date): ApiFault {
    this.#assertRoom(partnerId)
    const record: ApiFault = {
      kind: 'api',
      id: newFaultId(),
      route: pattern.route,
      endpoints: pattern.endpoints,
      status: input.status ?? null,
      retryAfterSeconds:
        input.status === 500 || input.status === undefined ? null : (input.retryAfterSeconds ?? 1),
      latency: input.latency ?? null,
      drop: input.drop ?? null,
      rate: input.rate ?? 1,
      times: input.times ?? null,
      remaining: input.times ?? null,
      seed: seedOf(input.seed),
      injected: 0,
      createdAt: now.toISOString(),
    }
    this.#of(partnerId).push({
      kind: 'api',
      seq: ++this.#seq,
      record,
      pattern,
      random: seededRandom(record.seed),
    })
    return record
  }

  /**
   * Set the delivery fault of a registration or listen session, replacing the one it had. The same
   * settings again keep the fault as it is (a listener reconnecting keeps its sequence and counts).
   * A target without a fault gets one only below the cap (422 FAULT_LIMIT).
   */
  setDelivery(
    partnerId: string,
    target: FaultTarget,
    settings: DeliveryFaultSettings,
    now: Date,
  ): DeliveryFault {
    const current = this.delivery(partnerId, targetIdOf(target))
    if (current !== undefined && sameSettings(current.record, settings)) return current.record
    if (current === undefined) this.#assertRoom(partnerId)
    this.removeTarget(partnerId, targetIdOf(target))
    const record: DeliveryFault = {
      kind: 'delivery',
      id: newFaultId(),
      webhookId: 'webhookId' in target ? target.webhookId : null,
      listenSessionId: 'listenSessionId' in target ? target.listenSessionId : null,
      duplicate: settings.duplicate ?? null,
      reorder: settings.reorder ?? null,
      delayMs: settings.delayMs ?? null,
      failFirst: settings.failFirst ?? null,
      tamperSignature: settings.tamperSignature ?? null,
      seed: seedOf(settings.seed),
      injected: 0,
      createdAt: now.toISOString(),
    }
    this.#of(partnerId).push(new DeliveryFaultState(record, ++this.#seq))
    return record
  }

  /** The partner's faults added after position `after`, oldest first, at most `limit`, each with its position. */
  after(partnerId: string, after: number, limit: number): {seq: number; fault: Fault}[] {
    const entries = this.#byPartner.get(partnerId) ?? []
    return entries
      .filter((e) => e.seq > after)
      .slice(0, limit)
      .map((e) => ({seq: e.seq, fault: {...e.record}}))
  }

  #assertRoom(partnerId: string): void {
    const live = (this.#byPartner.get(partnerId) ?? []).filter(isLive).length
    if (live < FAULT_CAP) return
    throw new ApiError(
      'FAULT_LIMIT',
      `${live} faults are live, the most a partner may have at once; remove one (payctl sandbox faults remove ID, DELETE /_sandbox/faults/{id}) or all of them (payctl sandbox faults clear, DELETE /_sandbox/faults)`,
      {limit: FAULT_CAP, live},
    )
  }

  /** Drop the oldest spent API faults of the partner past the SPENT_FAULTS_KEPT newest. */
  #dropSpent(partnerId: string, entries: Entry[]): void {
    const spent = entries.filter((e) => !isLive(e))
    if (spent.length <= SPENT_FAULTS_KEPT) return
    const dropped = new Set(spent.slice(0, spent.length - SPENT_FAULTS_KEPT))
    this.#byPartner.set(
      partnerId,
      entries.filter((e) => !dropped.has(e)),
    )
  }

  /** Remove one fault of the partner's; false when it has none of that id. */
  remove(partnerId: string, id: string): boolean {
    const entries = this.#byPartner.get(partnerId) ?? []
    const at = entries.findIndex((e) => e.record.id === id)
    if (at < 0) return false
    entries.splice(at, 1)
    return true
  }

  /** Remove every fault of the partner's; how many there were. */
  clear(partnerId: string): number {
    const n = this.#byPartner.get(partnerId)?.length ?? 0
    this.#byPartner.delete(partnerId)
    return n
  }

  /** Remove the delivery fault of a registration or session that is gone or ended. */
  removeTarget(partnerId: string, targetId: string): void {
    const entries = this.#byPartner.get(partnerId)
    if (entries === undefined) return
    const left = entries.filter((e) => e.kind !== 'delivery' || targetOfRecord(e.record) !== targetId)
    this.#byPartner.set(partnerId, left)
  }

  /** The delivery fault of a registration or listen session of the partner, if it has one. */
  delivery(partnerId: string, targetId: string): DeliveryFaultState | undefined {
    const entries = this.#byPartner.get(partnerId)
    if (entries === undefined) return undefined
    for (const e of entries) if (e.kind === 'delivery' && targetOfRecord(e.record) === targetId) return e
    return undefined
  }

  /**
   * What the partner's API faults do to a request to `operationId` at `path`. Each matching fault
   * takes one number of its sequence per request, hit or not, so a seed gives the same choices for
   * the same order of requests. Latencies add up; the first fault that answers or cuts wins.
   */
  draw(partnerId: string, operationId: string, path: string): ApiInjection | undefined {
    const entries = this.#byPartner.get(partnerId)
    if (entries === undefined) return undefined
    let injection: ApiInjection | undefined
    let spent = false
    for (const e of entries) {
      if (e.kind !== 'api' || e.record.remaining === 0) continue
      if (!e.pattern.operationIds.has(operationId) || !e.pattern.path.test(path)) continue
      if (!(e.random() < e.record.rate)) continue
      const {record} = e
      const answers = record.status !== null || record.drop !== null
      if (answers && (injection?.status !== undefined || injection?.drop !== undefined)) continue
      injection ??= {latencyMs: 0, faultIds: [], label: ''}
      if (record.latency !== null) injection.latencyMs += latencyOf(record.latency, e.random)
      if (record.status !== null) injection.status = record.status as FaultStatus
      if (record.retryAfterSeconds !== null) injection.retryAfterSeconds = record.retryAfterSeconds
      if (record.drop !== null) injection.drop = record.drop
      injection.faultIds.push(record.id)
      record.injected++
      if (record.remaining !== null) record.remaining--
      if (record.remaining === 0) spent = true
    }
    if (spent) this.#dropSpent(partnerId, entries)
    if (injection !== undefined) injection.label = labelOf(injection)
    return injection
  }
}

function latencyOf(latency: {minMs: number; maxMs: number}, random: () => number): number {
  return latency.minMs + Math.floor(random() * (latency.maxMs - latency.minMs + 1))
}

function labelOf(i: ApiInjection): string {
  return [
    i.latencyMs > 0 ? `latency ${i.latencyMs}ms` : '',
    i.status !== undefined ? `status ${i.status}` : '',
    i.drop !== undefined ? `drop ${i.drop}` : '',
  ]
    .filter((part) => part !== '')
    .join(', ')
}

function sameSettings(record: DeliveryFault, s: DeliveryFaultSettings): boolean {
  return (
    record.duplicate === (s.duplicate ?? null) &&
    record.reorder === (s.reorder ?? null) &&
    record.delayMs === (s.delayMs ?? null) &&
    record.failFirst === (s.failFirst ?? null) &&
    record.tamperSignature === (s.tamperSignature ?? null) &&
    (s.seed === undefined || record.seed === s.seed)
  )
}

const STATUS_CODES = {429: 'RATE_LIMIT_EXCEEDED', 500: 'INTERNAL_ERROR', 503: 'SERVICE_UNAVAILABLE'} as const
const STATUS_TEXT = {429: 'too many requests', 500: 'server error', 503: 'service unavailable'} as const

/** Requests whose connection is cut once their answer is committed (`drop after`). */
const dropAfter = new WeakSet<FastifyRequest>()

/**
 * Inject the partner's API faults into an authenticated request, before its body is read: wait out
 * the latency, then answer the fault's status (rejects), cut the connection (`drop before`: the
 * operation never runs), or mark the request to be cut once its answer is committed (`drop after`).
 * Undefined when the partner has no fault for it.
 */
export function injectApiFault(
  faults: FaultStore,
  request: FastifyRequest,
  reply: FastifyReply,
  operationId: string,
  partnerId: string,
): Promise<void> | undefined {
  const injection = faults.draw(partnerId, operationId, request.url.split('?', 1)[0] ?? '')
  // None drawn (nearly always): nothing to wait for.
  return injection === undefined ? undefined : inject(injection, request, reply)
}

async function inject(injection: ApiInjection, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  request.injectedFault = injection.label
  if (injection.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, injection.latencyMs))
  if (injection.drop === 'before') {
    // Nothing runs and nothing answers: Fastify leaves a hijacked reply alone.
    reply.hijack()
    request.raw.socket.destroy()
    return
  }
  if (injection.drop === 'after') dropAfter.add(request)
  const status = injection.status
  if (status === undefined) return
  const retryAfter = injection.retryAfterSeconds
  throw new ApiError(
    STATUS_CODES[status],
    `Injected fault (${injection.faultIds.join(', ')}): ${STATUS_TEXT[status]}`,
    {injected: true, faultIds: injection.faultIds},
    {headers: retryAfter === undefined ? {} : {'retry-after': String(retryAfter)}},
  )
}

/**
 * Cut the connection of a `drop after` request in place of its answer. Added after the hook that
 * holds answers until their commit, so the change (and its idempotent answer) is in the data file.
 */
export function addDropAfterHook(app: FastifyInstance): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (dropAfter.has(request)) request.raw.socket.destroy()
    done(null, payload)
  })
}
