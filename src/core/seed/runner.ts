import {createHash} from 'node:crypto'
import {currencySuffix, type EndpointBody, unwrapEnvelope} from '../../contract/index.js'
import type {PayctlClient} from '../client.js'
import {errorFrom} from '../client.js'
import {PayctlError} from '../errors.js'
import {parseExact} from '../exact-json.js'
import {readMajor} from '../money.js'
import type {TokenBucket} from '../rate-limiter.js'
import {type Fixture, type RecordKind, recordKey, resolveRefs, type SeedRecord} from './fixture.js'
import type {Journal} from './journal.js'
import {minorAmountOf} from './money.js'

export interface SeedProgress {
  done: number
  total: number
  /** Records found in the journal of an earlier run, and not sent again. */
  skipped: number
  ratePerSecond: number
  etaSeconds: number | undefined
  /** The record just created. */
  last?: string
}

export interface SeedOptions {
  concurrency: number
  limiter?: TokenBucket | undefined
  journal?: Journal | undefined
  onProgress?: ((p: SeedProgress) => void) | undefined
}

/**
 * Created ids by fixture name: `{wallets: {alice_usd: {id}, bulk: [{id}, …]}}`. A webhook
 * registration this run made carries its signing secret too (`{id, secret}`), the one time the
 * service gives it; one an earlier run made has its id only.
 */
export type SeedResult = Record<string, Record<string, SeedRecordIds | SeedRecordIds[]>>

/** What the result holds of one created record. */
export interface SeedRecordIds {
  id: string
  /** A webhook registration's signing secret (`whsec_…`), when this run made it. */
  secret?: string
}

type Create = (
  client: PayctlClient,
  fields: Record<string, unknown>,
  idempotencyKey: string,
) => Promise<{id: string}>

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v))

/** A record later ones refer to must have an id; the interface does not promise one for every kind. */
function requireId(id: unknown, what: string): string {
  if (typeof id === 'string' && id !== '') return id
  throw new PayctlError({
    kind: 'invalid_response',
    code: 'INVALID_RESPONSE',
    message: `the service created a ${what} but answered without an id, so a fixture cannot refer to it`,
  })
}

/** A major-unit amount as the round-up API takes it: the number it spells, its currency (checked when read) aside. */
const majorValue = (value: unknown): number =>
  typeof value === 'number' ? value : (readMajor(String(value))?.value ?? Number(value))

/** How each kind of record is created; fixture fields are snake_case, like the service's own inputs. */
const CREATORS: Record<RecordKind, Create> = {
  roundup_settings: async (c, f) => {
    const settings = await c.call('putRoundupSettings', {
      params: {id: String(f.user)},
      body: {
        enabled: f.enabled !== false,
        multiplier: f.multiplier as 1 | 2 | 3 | 5,
        max_roundup_amount: majorValue(f.max_roundup_amount),
        ...(f.destination_account_id ? {destination_account_id: String(f.destination_account_id)} : {}),
        ...(f.currency ? {currency: String(f.currency).toUpperCase()} : {}),
      } as EndpointBody<'putRoundupSettings'>,
    })
    // A user has one settings record, so the user's id stands for it.
    return {...settings, id: String(f.user)}
  },
  purchases: async (c, f, key) => {
    const transactionId = str(f.transaction_id) ?? key
    const roundup = await c.call('processRoundup', {
      body: {
        user_id: String(f.user),
        amount: majorValue(f.amount),
        merchant_name: String(f.merchant_name),
        transaction_id: transactionId,
      },
      idempotencyKey: key,
    })
    // The interface shows only `roundup_amount`: the purchase's own transaction id names it.
    return {...roundup, id: typeof roundup.id === 'string' ? roundup.id : transactionId}
  },
  bnpl_payments: async (c, f, key) => {
    const currency = str(f.currency) ?? currencySuffix(String(f.amount)) ?? 'USD'
    const payment = await c.call('createBnplPayment', {
      body: {
        userId: String(f.user),
        amount: minorAmountOf('bnpl_payments', 'amount', f.amount, currency),
        currency: currency.toUpperCase(),
        merchantName: String(f.merchant_name),
        ...(f.description ? {description: String(f.description)} : {}),
      },
      idempotencyKey: key,
    })
    return {...payment, id: requireId(payment.id, 'BNPL payment')}
  },
  users: (c, f, key) =>
    c.call('createUser', {
      body: {
        email: String(f.email),
        first_name: String(f.first_name),
        last_name: String(f.last_name),
        ...(f.external_id ? {external_id: String(f.external_id)} : {}),
        ...(c.profile.auth?.partnerId ? {partner_id: c.profile.auth.partnerId} : {}),
      },
      idempotencyKey: key,
    }),
  wallets: (c, f, key) => {
    const currency = String(f.currency).toUpperCase()
    return c.call('createWallet', {
      body: {
        userId: String(f.user),
        currency,
        ...(f.label === undefined ? {} : {label: String(f.label)}),
        ...(f.initial_balance === undefined
          ? {}
          : {initialBalance: minorAmountOf('wallets', 'initial_balance', f.initial_balance, currency)}),
      },
      idempotencyKey: key,
    })
  },
  payment_methods: (c, f, key) =>
    c.call('addPaymentMethod', {
      params: {id: String(f.user)},
      body: {type: f.type as 'card', token: String(f.token)},
      idempotencyKey: key,
    }),
  transactions: (c, f, key) => {
    const amount = minorAmountOf('transactions', 'amount', f.amount, str(f.currency))
    const currency = str(f.currency) ?? currencySuffix(String(f.amount))
    if (!currency)
      throw new PayctlError({
        kind: 'usage',
        code: 'INVALID_FIXTURE',
        message: 'a transaction needs currency, or an amount like 12.34USD',
      })
    return c.call('createTransaction', {
      body: {
        amount,
        currency: currency.toUpperCase(),
        method: f.method as 'card',
        ...(f.payment_method ? {paymentMethodId: String(f.payment_method)} : {}),
        ...(f.from ? {sourceWalletId: String(f.from)} : {}),
        ...(f.to ? {destinationWalletId: String(f.to)} : {}),
        ...(f.description ? {description: String(f.description)} : {}),
        ...(f.metadata ? {metadata: f.metadata as Record<string, string>} : {}),
      },
      idempotencyKey: key,
    })
  },
  webhooks: async (c, f, key) => {
    const res = await c.raw('POST', '/webhooks', {
      body: JSON.stringify({url: f.url, events: f.events}),
      idempotencyKey: key,
    })
    if (res.status >= 300) throw errorFrom(res)
    return unwrapEnvelope(parseExact(res.text)) as {id: string}
  },
}

/**
 * The idempotency key of a record: the same for every run of the same fixture, and another once
 * the record's content changes, so that a record fixed after the service refused it is a new
 * request (not a reuse of the key with another body, which the service refuses in turn).
 */
export function seedKey(fixture: string, key: string, fields: unknown = undefined): string {
  const hash = createHash('sha256').update(`${fixture}\u0000${key}`)
  if (fields !== undefined) hash.update(`\u0000${canonical(fields)}`)
  return `seed_${hash.digest('hex').slice(0, 40)}`
}

/** JSON with object keys sorted, so that the same content gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return typeof value === 'bigint' ? value.toString() : JSON.stringify(value)
}

/** The fields of a created record that the fixture refers to, for the journal; never a secret. */
function journalled(fixture: Fixture, key: string, result: Record<string, unknown>) {
  const names = [...(fixture.referencedFields?.get(key) ?? [])].filter(
    (f) => f !== 'id' && !/secret|token|password|cvc|number/i.test(f) && f in result,
  )
  if (names.length === 0) return {}
  return {fields: Object.fromEntries(names.map((f) => [f, result[f]]))}
}

/**
 * Create every record of a fixture, each after the records it refers to, up to `concurrency` at
 * once, paced by the limiter. Records listed in the journal are not sent again; a record whose
 * creation failed stops the run (what is under way finishes) and is reported with its name.
 */
// Long: one scheduler loop whose ready queue, in-flight set and failure share its closure.
export async function seed(client: PayctlClient, fixture: Fixture, opts: SeedOptions): Promise<SeedResult> {
  const records = new Map(fixture.records.map((r) => [recordKey(r), r]))
  // Of a created record's answer only what is read later: its id, and the fields that other
  // records refer to, until they are all created. Ten thousand whole answers held to the end were
  // most of a seed run's memory.
  const created = new Map<string, Record<string, unknown>>()
  for (const [key, entry] of opts.journal?.read() ?? [])
    if (records.has(key)) created.set(key, {...entry.fields, id: entry.id})
  const skipped = created.size
  const dependents = dependentsOf(fixture.records)
  // How many records that refer to each record are not created yet.
  const waiting = new Map<string, number>()
  for (const [key, list] of dependents)
    waiting.set(key, list.filter((r) => !created.has(recordKey(r))).length)
  const settle = (key: string) => {
    const left = (waiting.get(key) ?? 0) - 1
    waiting.set(key, left)
    const record = created.get(key)
    if (left <= 0 && record !== undefined) created.set(key, {id: record.id})
  }
  const kept = (key: string, result: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {id: result.id}
    // Without the fixture's list of referenced fields, keep everything while anyone waits.
    const fields =
      fixture.referencedFields === undefined ? Object.keys(result) : fixture.referencedFields.get(key)
    if ((waiting.get(key) ?? 0) > 0)
      for (const field of fields ?? []) if (field in result) out[field] = result[field]
    return out
  }
  const isReady = (r: SeedRecord) => !created.has(recordKey(r)) && r.dependsOn.every((d) => created.has(d))
  const ready: SeedRecord[] = fixture.records.filter(isReady)
  const queued = new Set(ready.map(recordKey))
  const started = performance.now()
  let done = created.size
  const lookup = fieldsOf(created)
  // The signing secrets of the registrations this run makes, for its result only (never the journal).
  const secrets = new Map<string, string>()

  const runOne = async (record: SeedRecord) => {
    const key = recordKey(record)
    const fields = resolveRefs(record.fields, lookup) as Record<string, unknown>
    await opts.limiter?.take()
    const result = (await CREATORS[record.kind](
      client,
      fields,
      seedKey(fixture.name, key, fields),
    )) as Record<string, unknown>
    created.set(key, kept(key, result))
    if (record.kind === 'webhooks' && typeof result.secret === 'string') secrets.set(key, result.secret)
    for (const d of record.dependsOn) settle(d)
    opts.journal?.append({key, id: String(result.id), ...journalled(fixture, key, result)})
    done++
    const elapsed = (performance.now() - started) / 1000
    const rate = (done - skipped) / Math.max(elapsed, 0.001)
    opts.onProgress?.({
      done,
      total: records.size,
      skipped,
      ratePerSecond: rate,
      etaSeconds: rate > 0 ? (records.size - done) / rate : undefined,
      last: key,
    })
    for (const next of dependents.get(key) ?? []) {
      if (!queued.has(recordKey(next)) && isReady(next)) {
        queued.add(recordKey(next))
        ready.push(next)
      }
    }
  }

  const failure = await drain(ready, opts.concurrency, runOne).finally(() => opts.journal?.close())
  if (failure) throw failedRun(failure.record, failure.error, done, records.size)
  return resultOf(fixture, created, secrets)
}

/** The records that refer to (or come after) each record, by its key. */
function dependentsOf(records: SeedRecord[]): Map<string, SeedRecord[]> {
  const dependents = new Map<string, SeedRecord[]>()
  for (const r of records) {
    for (const d of r.dependsOn) {
      const list = dependents.get(d)
      if (list === undefined) dependents.set(d, [r])
      else list.push(r)
    }
  }
  return dependents
}

/** How resolveRefs reads a field of a created record; one the run does not know is a usage error. */
function fieldsOf(created: Map<string, Record<string, unknown>>): (key: string, field: string) => unknown {
  return (key, field) => {
    const value = created.get(key)?.[field]
    if (value === undefined) {
      throw new PayctlError({
        kind: 'usage',
        code: 'INVALID_FIXTURE',
        message: `${key} has no field "${field}"${created.get(key) && Object.keys(created.get(key)!).length === 1 ? ' known to this run (an earlier run created it, and its journal does not hold that field)' : ''}`,
        suggestions: [
          'Run the same command with --fresh: the records made before are answered again by the service, with every field, and not made twice.',
        ],
      })
    }
    return value
  }
}

/**
 * Run `work` on the records of `ready`, up to `concurrency` at once, taking those that `work` adds
 * to it as they come, until none is left and none is under way, or one fails. After a failure no
 * record is started, and what is under way finishes. Answers the first failure, if any.
 */
async function drain(
  ready: SeedRecord[],
  concurrency: number,
  work: (record: SeedRecord) => Promise<void>,
): Promise<{record: SeedRecord; error: unknown} | undefined> {
  let failure: {record: SeedRecord; error: unknown} | undefined
  // A fixed pool of workers pulling from the ready queue; a worker that finds it empty waits for
  // the others to make more records ready.
  let inFlight = 0
  let wake: (() => void) | undefined
  const worker = async () => {
    for (;;) {
      if (failure) return
      const record = ready.shift()
      if (!record) {
        if (inFlight === 0) return
        await new Promise<void>((resolve) => {
          const previous = wake
          wake = () => {
            previous?.()
            resolve()
          }
        })
        continue
      }
      inFlight++
      try {
        await work(record)
      } catch (error) {
        failure ??= {record, error}
      } finally {
        inFlight--
        const w = wake
        wake = undefined
        w?.()
      }
    }
  }
  await Promise.all(Array.from({length: Math.max(1, concurrency)}, worker))
  return failure
}

/** The error a run ends with when `record` failed: its name, how many records exist, and what to do. */
function failedRun(record: SeedRecord, error: unknown, done: number, total: number): PayctlError {
  const e =
    error instanceof PayctlError
      ? error
      : new PayctlError({kind: 'api', code: 'SEED_FAILED', message: String(error), cause: error})
  e.message = `${recordKey(record)}: ${e.message} (${done} of ${total} records exist)`
  e.suggestions = recovery(record, e)
  return e
}

/**
 * What to do after a record failed. Where nothing was wrong with the record (no answer, a 5xx, the
 * rate limit), running again finishes the job. Where the service refused the record as the fixture
 * has it, running again would fail the same way: say what to change. A changed record is sent
 * with a new idempotency key, so the fixed fixture's run creates it; the records made so far stay.
 */
function recovery(record: SeedRecord, e: PayctlError): string[] {
  const name = recordKey(record)
  const transient =
    e.kind === 'network' ||
    e.kind === 'rate_limited' ||
    e.kind === 'invalid_response' ||
    (e.status ?? 0) >= 500
  if (transient) return ['Run the same command again to finish: records already made are not made twice.']
  if (e.kind === 'auth' || e.kind === 'safety' || e.kind === 'config') return []
  const reset =
    'To start over instead: payctl sandbox reset, then the same command with --fresh (against a local sandbox).'
  switch (e.code) {
    case 'WALLET_EXISTS': {
      const d = e.details ?? {}
      const existing = typeof d.existingWalletId === 'string' ? ` (${d.existingWalletId})` : ''
      return [
        `A user has one wallet per currency, and this user already has a ${String(d.currency ?? '')} wallet${existing}: give ${name} another currency or another user in the fixture, then run the same command.`,
        `If ${name} itself was changed after an earlier run created it, the change cannot be applied to the wallet that exists. ${reset}`,
      ]
    }
    case 'INSUFFICIENT_FUNDS':
      return [
        `The source wallet holds less than ${name} moves: lower its amount, or fund the wallet first (a transaction to it, named in ${name}'s after: list), then run the same command.`,
        `A wallet's initial_balance counts only when the wallet is created: raising it for a wallet an earlier run made changes nothing. ${reset}`,
      ]
    default:
      return [
        `The service refused ${name} as the fixture has it: change it as the message says, then run the same command (the records made so far are kept, and the changed record is sent anew).`,
      ]
  }
}

function resultOf(
  fixture: Fixture,
  created: Map<string, Record<string, unknown>>,
  secrets: Map<string, string>,
): SeedResult {
  const out: SeedResult = {}
  for (const r of fixture.records) {
    const key = recordKey(r)
    const secret = secrets.get(key)
    const ids: SeedRecordIds = {id: String(created.get(key)?.id), ...(secret === undefined ? {} : {secret})}
    // Without a prototype, a record named `constructor` is a key like any other, not Object's.
    out[r.kind] ??= Object.create(null)
    const kind = out[r.kind]!
    const m = /^(.*)\[(\d+)\]$/.exec(r.name)
    if (m) {
      kind[m[1]!] ??= []
      ;(kind[m[1]!] as SeedRecordIds[])[Number(m[2])] = ids
    } else kind[r.name] = ids
  }
  return out
}

/** The order records would be created in: waves of records whose references are all earlier. */
export function plan(fixture: Fixture): {wave: number; kind: string; names: string[]}[] {
  const level = new Map<string, number>()
  const byKey = new Map(fixture.records.map((r) => [recordKey(r), r]))
  const depth = (key: string): number => {
    const known = level.get(key)
    if (known !== undefined) return known
    const deps = byKey.get(key)?.dependsOn ?? []
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(depth))
    level.set(key, d)
    return d
  }
  const groups = new Map<string, {wave: number; kind: string; names: string[]}>()
  for (const r of fixture.records) {
    const wave = depth(recordKey(r))
    const id = `${wave}:${r.kind}`
    const g = groups.get(id) ?? {wave, kind: r.kind, names: []}
    g.names.push(r.name)
    groups.set(id, g)
  }
  return [...groups.values()].sort((a, b) => a.wave - b.wave || a.kind.localeCompare(b.kind))
}
