import type {EventName} from '../../contract/events/envelope.js'
import {minorFrom} from '../../contract/money/amounts.js'
import {TRIGGER_OVERRIDES} from '../../contract/trigger-overrides.js'
import type {TriggerResult} from '../../contract/webhooks.js'
import {
  type OperationInput,
  partnerOf,
  type RawInput,
  type ServedRoute,
  type ServingContext,
} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {envelopeOf} from './envelope.js'
import {
  FIXTURES,
  type Fixture,
  type FixtureSettings,
  KINDS,
  person,
  type Step,
  wallet as walletStep,
} from './fixtures.js'
import type {WebhookStore} from './store.js'

/** Finds the operation serving an endpoint, if this sandbox serves it; it parses its input as a request's. */
export type OperationLookup = (operationId: string) => ServedRoute | undefined

/** What the steps of a trigger made or read, by step name. */
export type FixtureObjects = Record<string, Record<string, unknown>>

/** What a trigger is told about its event's records (TRIGGER_OVERRIDES says which each event takes). */
export interface TriggerOverrides {
  user?: string | undefined
  wallet?: string | undefined
  /** Field names (dotted for a metadata key) to values, already checked against the event's rules. */
  set?: Record<string, unknown> | undefined
}

/** A new wallet that money leaves holds this much, or the amount the event moves if more. */
const FUNDING = 100_000n

// ${kind.name.field}, as in seed fixtures (docs/seed.md).
const REFERENCE = /\$\{(\w+)\.(\w+)\.(\w+)\}/g

/** What the steps of a trigger made so far, and the kind of each, by step name. */
interface Made {
  objects: FixtureObjects
  kinds: Map<string, string>
}

/** Replace `${kind.name.field}` references; a string that is one reference takes the value's own type. */
function resolve(value: unknown, made: Made): unknown {
  if (typeof value === 'string') {
    const lookup = (kind: string, name: string, field: string): unknown => {
      if (made.kinds.get(name) !== kind) {
        throw new Error(`fixture reference \${${kind}.${name}.${field}} names no ${kind} made before it`)
      }
      return made.objects[name]?.[field]
    }
    const whole = /^\$\{(\w+)\.(\w+)\.(\w+)\}$/.exec(value)
    if (whole) return lookup(whole[1]!, whole[2]!, whole[3]!)
    return value.replace(REFERENCE, (_m, kind: string, name: string, field: string) =>
      String(lookup(kind, name, field) ?? ''),
    )
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, made))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, made)]))
  }
  return value
}

/**
 * Run steps through the operations that serve them, as the caller of the trigger. A refusal that
 * kept a transaction (a declined card) still names it, as `made[step.as]`.
 */
function runSteps(steps: readonly Step[], lookup: OperationLookup, caller: RawInput, made: Made): void {
  for (const step of steps) {
    const spec = lookup(step.op)
    if (spec === undefined) throw new Error(`fixture step ${step.op} is not served by this sandbox`)
    made.kinds.set(step.as, KINDS[step.op] ?? step.op)
    let result: unknown
    try {
      result = spec.run({
        ...caller,
        query: resolve(step.query ?? {}, made),
        params: resolve(step.params ?? {}, made) as Record<string, string>,
        body: resolve(step.body, made),
        setHeaders: () => undefined,
      })
    } catch (err) {
      const kept = err instanceof ApiError ? err.details?.transactionId : undefined
      if (typeof kept === 'string') made.objects[step.as] = {id: kept}
      throw err
    }
    // Triggers run inside one SQLite transaction, so every step must be synchronous.
    if (result instanceof Promise) throw new Error(`fixture step ${step.op} is not synchronous`)
    made.objects[step.as] = result as Record<string, unknown>
  }
}

function refuse(field: string, message: string): never {
  throw new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${message}`, {
    field,
    issues: [{path: field, code: 'custom', message}],
  })
}

/**
 * The user and wallet the event is about: the named wallet (and its user), or the named user (and
 * their wallet in the currency, if they have one), or new ones. Read and made through the API's own
 * operations, so another partner's records are unknown here as anywhere.
 */
function startFrom(fixture: Fixture, o: TriggerOverrides, run: (steps: Step[]) => void, made: Made): void {
  const set = o.set ?? {}
  const currency = typeof set.currency === 'string' ? set.currency : undefined
  if (o.wallet !== undefined) {
    run([{as: 'wallet', op: 'getWallet', params: {id: o.wallet}}])
    const w = made.objects.wallet!
    if (o.user !== undefined && w.userId !== o.user) {
      refuse('wallet', `the wallet ${o.wallet} belongs to ${String(w.userId)}, not to the user ${o.user}`)
    }
    if (currency !== undefined && currency !== w.currency) {
      refuse('set.currency', `the wallet ${o.wallet} is in ${String(w.currency)}, not ${currency}`)
    }
    run([{as: 'user', op: 'getUser', params: {id: String(w.userId)}}])
    return
  }
  run([o.user === undefined ? person('user') : {as: 'user', op: 'getUser', params: {id: o.user}}])
  const inCurrency = currency ?? 'USD'
  if (o.user !== undefined && fixture.target !== 'wallet') {
    const listed = {as: 'existing', op: 'listWallets', query: {userId: o.user, currency: inCurrency}}
    run([listed])
    const [found] = (made.objects.existing?.wallets ?? []) as Record<string, unknown>[]
    delete made.objects.existing
    if (found !== undefined) {
      made.objects.wallet = found
      made.kinds.set('wallet', 'wallets')
      return
    }
  }
  const amount = minorFrom(set.amount) ?? 0n
  const funding = amount > FUNDING ? amount : FUNDING
  const extra: Record<string, unknown> = fixture.funded ? {initialBalance: funding} : {}
  if (fixture.target === 'wallet' && set.label !== undefined) extra.label = set.label
  run([walletStep('wallet', 'user', inCurrency, extra)])
}

/** The steps with the overrides put where the fixture says each field goes. */
function withOverrides(
  type: EventName,
  fixture: Fixture,
  steps: Step[],
  set: Record<string, unknown>,
): Step[] {
  const rules = TRIGGER_OVERRIDES[type].set
  const out = steps.map((s) => ({...s, body: {...s.body}}))
  for (const [name, value] of Object.entries(set)) {
    const dot = name.indexOf('.')
    const head = dot < 0 ? name : name.slice(0, dot)
    // The currency is the wallet's, which startFrom chose; so is a new wallet's label.
    if (head === 'currency' || fixture.target === 'wallet') continue
    const [as, field] = (fixture.places?.[head] ?? `${fixture.target}.${head}`).split('.') as [string, string]
    const step = out.find((s) => s.as === as)
    if (step === undefined) throw new Error(`trigger fixture of ${type} has no step ${as}`)
    if (rules[head]?.map === true) {
      step.body[field] = {...(step.body[field] as object | undefined), [name.slice(dot + 1)]: value}
    } else {
      step.body[field] = value
    }
  }
  return out
}

/** How a trigger runs its steps, finds the event they recorded, and records what it made. */
export interface TriggerRun {
  lookup: OperationLookup
  caller: RawInput
  /** Runs a function in a savepoint: a producer that refuses part-way leaves nothing of its own. */
  transaction: <T>(fn: () => T) => T
  settings: FixtureSettings
  /** The newest event of the type recorded since the trigger started, if any. */
  recorded: () => {id: string} | undefined
}

/**
 * Create (or read) what an event of `type` needs and make its real producer record it. The
 * refusal of a producer that records no event (a wallet short of the amount) is the trigger's own
 * answer; a flow that ends without the event is TRIGGER_NOT_RECORDED.
 */
export function runTrigger(
  type: EventName,
  overrides: TriggerOverrides,
  r: TriggerRun,
): {objects: FixtureObjects; eventId: string} {
  const fixture = FIXTURES[type]
  const made: Made = {objects: {}, kinds: new Map()}
  const run = (steps: Step[]) => runSteps(steps, r.lookup, r.caller, made)
  startFrom(fixture, overrides, run, made)
  run(fixture.setup?.() ?? [])
  const produce = withOverrides(type, fixture, fixture.produce?.(r.settings) ?? [], overrides.set ?? {})
  let refusal: ApiError | undefined
  try {
    r.transaction(() => run(produce))
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    refusal = err
  }
  const event = r.recorded()
  if (event !== undefined) return {objects: made.objects, eventId: event.id}
  if (refusal !== undefined) throw refusal
  throw new ApiError(
    'TRIGGER_NOT_RECORDED',
    `The flow of ${type} ran but recorded no ${type}${fixture.unrecorded ? `: ${fixture.unrecorded}` : ''}`,
    {event: type, ...(overrides.wallet === undefined ? {} : {walletId: overrides.wallet})},
  )
}

/**
 * POST /sandbox/trigger: run the flow of the event as the caller, all or nothing, and answer the
 * event it recorded with the ids of what it made, by step name.
 */
export function trigger(
  ctx: Pick<ServingContext, 'database' | 'operation' | 'settings'>,
  store: WebhookStore,
  input: OperationInput<'sandboxTrigger'>,
): TriggerResult {
  const {event: type, ...overrides} = input.body
  const partnerId = partnerOf(input)
  // All or nothing, also when the request carries no Idempotency-Key (which would wrap it anyway).
  const {objects, event} = ctx.database.transaction(() => {
    const before = store.maxEventSeq()
    const {objects, eventId} = runTrigger(type, overrides, {
      lookup: ctx.operation,
      caller: input,
      transaction: (fn) => ctx.database.transaction(fn),
      settings: {settleAfterSeconds: ctx.settings.settleAfterSeconds},
      recorded: () => store.latestEvent(partnerId, type, before),
    })
    return {objects, event: store.event(eventId)!}
  })
  return {
    event: envelopeOf(event),
    synthesized: false,
    objects: Object.fromEntries(
      Object.entries(objects)
        .filter(([, o]) => typeof o?.id === 'string')
        .map(([name, o]) => [name, o.id as string]),
    ),
  }
}
