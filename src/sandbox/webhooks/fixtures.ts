import {BNPL_INSTALLMENTS, BNPL_INTERVAL_DAYS} from '../../contract/bnpl.js'
import type {EventName} from '../../contract/events.js'
import type {RawInput, ServedRoute} from '../context.js'
import {ApiError} from '../errors.js'
import {randomHex} from '../ids.js'

/** Finds the operation serving an endpoint, if this sandbox serves it; it parses its input as a request's. */
export type OperationLookup = (operationId: string) => ServedRoute | undefined

/** What the steps of a fixture created, by step name. */
export type FixtureObjects = Record<string, Record<string, unknown>>

/**
 * One call of a fixture: an operation of the contract with a body and path params in which
 * `${kind.name.field}` refers to a field of what an earlier step returned (the Stripe CLI's fixture
 * idea), as a seed fixture refers to its records: `kind` is the section a seed fixture would list
 * it under (KINDS), `name` the step's `as`.
 */
interface Step {
  as: string
  op: string
  params?: Record<string, string>
  body?: Record<string, unknown>
}

/** What of the sandbox's settings a fixture's steps depend on. */
export interface FixtureSettings {
  /** How long after it falls due a BNPL instalment is collected. */
  settleAfterSeconds: number
}

interface Fixture {
  /** Fund the user's wallet first (the funding itself records a transaction.completed). */
  funded?: true
  /** Steps run before the producer (besides the user and wallet every fixture gets). */
  setup?: () => Step[]
  /** Steps that make the event's real producer record it: run when the sandbox serves all of them. */
  produce?: Step[] | ((settings: FixtureSettings) => Step[])
  /** Realistic data for when no producer serves the event (yet), or it recorded none. */
  synthesize(o: FixtureObjects, now: Date): Record<string, unknown>
}

const PEOPLE = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Katherine', 'Johnson'],
  ['Edsger', 'Dijkstra'],
  ['Radia', 'Perlman'],
] as const

function person(as: string): Step {
  const [first, last] = PEOPLE[Math.floor(Math.random() * PEOPLE.length)]!
  return {
    as,
    op: 'createUser',
    body: {
      email: `${first.toLowerCase()}.${last.toLowerCase()}+${randomHex(3)}@example.test`,
      first_name: first,
      last_name: last,
    },
  }
}

function wallet(as: string, owner: string, initialBalance: number): Step {
  return {
    as,
    op: 'createWallet',
    body: {
      userId: `\${users.${owner}.id}`,
      currency: 'USD',
      label: 'payctl trigger',
      ...(initialBalance > 0 ? {initialBalance} : {}),
    },
  }
}

/** Every fixture starts with a user and a USD wallet (so it also records wallet.created). */
const BASE = (funded: boolean): Step[] => [person('user'), wallet('wallet', 'user', funded ? 100_000 : 0)]
const RECIPIENT = (): Step[] => [person('recipient'), wallet('recipientWallet', 'recipient', 0)]

const synthId = (prefix: string) => `${prefix}_${randomHex(12)}`
const id = (o: FixtureObjects, name: string) => String(o[name]?.id ?? '')
const inDays = (now: Date, days: number) => new Date(now.getTime() + days * 86_400_000).toISOString()

function bnplPayment(o: FixtureObjects, now: Date) {
  return {
    id: synthId('bnpl'),
    userId: id(o, 'user'),
    merchantName: 'Allbirds',
    amount: 24_000,
    currency: 'USD',
    installments: 4,
    installmentAmount: 6_000,
    schedule: [0, 14, 28, 42].map((d) => ({dueDate: inDays(now, d).slice(0, 10), amount: 6_000})),
    createdAt: now.toISOString(),
  }
}

function transfer(o: FixtureObjects) {
  const transferId = synthId('trf')
  return {
    transferId,
    transfer_id: transferId,
    amount: 5_000,
    currency: 'USD',
    sourceWalletId: id(o, 'wallet'),
    destinationWalletId: id(o, 'recipientWallet'),
  }
}

/** A purchase of 4.35 USD by a user with round-ups on: a round-up of 0.65 (both round-up events). */
const ROUNDUP = (enable: Record<string, unknown> = {}): Step[] => [
  {as: 'roundupSettings', op: 'enableRoundups', params: {id: '${users.user.id}'}, body: enable},
  {
    as: 'roundup',
    op: 'processRoundup',
    body: {
      user_id: '${users.user.id}',
      amount: 4.35,
      merchant_name: 'Blue Bottle Coffee',
      transaction_id: 'purchase_${users.user.id}',
    },
  },
]

/** A BNPL payment of 240.00 USD in four instalments, from the user's wallet. */
const BNPL_PAYMENT: Step = {
  as: 'payment',
  op: 'createBnplPayment',
  body: {userId: '${users.user.id}', amount: 24_000, currency: 'USD', merchantName: 'Allbirds'},
}

/**
 * Move the sandbox clock on until the first (`upTo` 1) or the last instalment of a payment made now
 * is collected: the clock is the sandbox's, so whatever else falls due by then settles too.
 */
const COLLECT = (upTo: number, s: FixtureSettings): Step => ({
  as: 'clock',
  op: 'sandboxAdvanceClock',
  body: {seconds: (upTo - 1) * BNPL_INTERVAL_DAYS * 86_400 + s.settleAfterSeconds + 1},
})

const CARD_DEPOSIT = (token: string): Step[] => [
  {
    as: 'paymentMethod',
    op: 'addPaymentMethod',
    params: {id: '${users.user.id}'},
    body: {type: 'card', token},
  },
  {
    as: 'transaction',
    op: 'createTransaction',
    body: {
      amount: 2_500,
      currency: 'USD',
      method: 'card',
      paymentMethodId: '${payment_methods.paymentMethod.id}',
      destinationWalletId: '${wallets.wallet.id}',
      description: 'payctl webhooks trigger',
    },
  },
]

/** The fixture of every event name of the spec. */
export const FIXTURES: Record<EventName, Fixture> = {
  'wallet.created': {
    // BASE creates the wallet; this runs only if the wallet route recorded nothing.
    synthesize: (o) => {
      const w = o.wallet ?? {}
      return {id: w.id, userId: w.userId, currency: w.currency, status: w.status, createdAt: w.createdAt}
    },
  },
  'transaction.completed': {
    produce: CARD_DEPOSIT('tok_visa'),
    synthesize: (o, now) => ({
      id: synthId('txn'),
      type: 'deposit',
      amount: 2_500,
      currency: 'USD',
      status: 'completed',
      destinationWalletId: id(o, 'wallet'),
      completedAt: now.toISOString(),
    }),
  },
  'transaction.failed': {
    produce: CARD_DEPOSIT('tok_card_declined'),
    synthesize: (o) => ({
      id: synthId('txn'),
      type: 'deposit',
      amount: 2_500,
      currency: 'USD',
      status: 'failed',
      destinationWalletId: id(o, 'wallet'),
      failureReason: 'card_declined: the card issuer declined the payment',
    }),
  },
  'transfer.completed': {
    funded: true,
    setup: RECIPIENT,
    produce: [
      {
        as: 'transfer',
        op: 'createTransaction',
        body: {
          amount: 5_000,
          currency: 'USD',
          method: 'wallet',
          sourceWalletId: '${wallets.wallet.id}',
          destinationWalletId: '${wallets.recipientWallet.id}',
          description: 'payctl webhooks trigger',
        },
      },
    ],
    synthesize: (o, now) => ({...transfer(o), status: 'completed', completedAt: now.toISOString()}),
  },
  'transfer.failed': {
    setup: RECIPIENT,
    synthesize: (o, now) => ({
      ...transfer(o),
      status: 'failed',
      failureReason: 'insufficient_funds',
      failedAt: now.toISOString(),
    }),
  },
  'roundup.processed': {
    produce: ROUNDUP(),
    synthesize: (o, now) => ({
      id: synthId('rnd'),
      userId: id(o, 'user'),
      walletId: id(o, 'wallet'),
      transactionId: synthId('txn'),
      amount: 65,
      currency: 'USD',
      createdAt: now.toISOString(),
    }),
  },
  'roundupsvc.roundup.processed': {
    produce: ROUNDUP(),
    synthesize: (o, now) => ({
      id: synthId('rnd'),
      user_id: id(o, 'user'),
      transaction_id: synthId('txn'),
      merchant_name: 'Blue Bottle Coffee',
      amount: 4.35,
      roundup_amount: 0.65,
      multiplier: 1,
      currency: 'USD',
      status: 'pending_transfer',
      processed_at: now.toISOString(),
    }),
  },
  'roundupsvc.transfer.completed': {
    // The round-up leaves the user's (funded) wallet for the recipient's, completed at once.
    funded: true,
    setup: RECIPIENT,
    produce: [
      ...ROUNDUP({destination_account_id: '${wallets.recipientWallet.id}'}),
      {as: 'roundupTransfer', op: 'transferRoundups', params: {id: '${users.user.id}'}},
    ],
    synthesize: (o, now) => ({
      id: synthId('rtr'),
      user_id: id(o, 'user'),
      amount: 12.4,
      currency: 'USD',
      roundup_count: 9,
      destination_account_id: id(o, 'wallet'),
      status: 'completed',
      completed_at: now.toISOString(),
    }),
  },
  'bnplsvc.payment.created': {
    produce: [BNPL_PAYMENT],
    synthesize: (o, now) => ({...bnplPayment(o, now), status: 'active', paidInstallments: 1}),
  },
  'bnplsvc.payment.completed': {
    // Funded: every instalment is collected, the last six weeks on.
    funded: true,
    produce: (s) => [BNPL_PAYMENT, COLLECT(BNPL_INSTALLMENTS, s)],
    synthesize: (o, now) => ({
      ...bnplPayment(o, now),
      status: 'completed',
      paidInstallments: 4,
      completedAt: now.toISOString(),
    }),
  },
  'bnplsvc.payment.failed': {
    // An empty wallet: the first instalment cannot be collected, which fails the payment.
    produce: (s) => [BNPL_PAYMENT, COLLECT(1, s)],
    synthesize: (o, now) => ({
      ...bnplPayment(o, now),
      status: 'failed',
      paidInstallments: 1,
      failureReason: 'installment_declined: the second installment’s card was declined',
      failedAt: now.toISOString(),
    }),
  },
  'walletsvc.payment.completed': {
    funded: true,
    produce: [
      {
        as: 'payment',
        op: 'processPayment',
        body: {
          userId: '${users.user.id}',
          amount: 1_250,
          currency: 'USD',
          merchantName: 'Blue Bottle Coffee',
        },
      },
    ],
    synthesize: (o, now) => ({
      id: synthId('wpay'),
      userId: id(o, 'user'),
      walletId: id(o, 'wallet'),
      transactionId: synthId('txn'),
      amount: 1_250,
      currency: 'USD',
      status: 'completed',
      merchantName: 'Blue Bottle Coffee',
      createdAt: now.toISOString(),
    }),
  },
  'walletsvc.p2p.sent': {
    funded: true,
    setup: RECIPIENT,
    produce: [
      {
        as: 'p2p',
        op: 'sendP2P',
        body: {
          fromUserId: '${users.user.id}',
          toUserId: '${users.recipient.id}',
          amount: 2_000,
          currency: 'USD',
          note: 'Dinner',
        },
      },
    ],
    synthesize: (o, now) => ({
      id: synthId('p2p'),
      fromUserId: id(o, 'user'),
      toUserId: id(o, 'recipient'),
      fromWalletId: id(o, 'wallet'),
      toWalletId: id(o, 'recipientWallet'),
      amount: 2_000,
      currency: 'USD',
      status: 'completed',
      note: 'Dinner',
      transactionIds: [synthId('txn'), synthId('txn')],
      createdAt: now.toISOString(),
    }),
  },
  'walletsvc.card.created': {
    produce: [
      {
        as: 'card',
        op: 'createCard',
        params: {id: '${users.user.id}'},
        body: {walletId: '${wallets.wallet.id}', label: 'Online shopping'},
      },
    ],
    synthesize: (o, now) => ({
      id: synthId('card'),
      userId: id(o, 'user'),
      walletId: id(o, 'wallet'),
      brand: 'visa',
      last4: '4242',
      expMonth: now.getUTCMonth() + 1,
      expYear: now.getUTCFullYear() + 3,
      status: 'active',
      label: 'Online shopping',
      createdAt: now.toISOString(),
    }),
  },
}

/** The section a seed fixture lists what each operation creates under: the `kind` of a reference. */
const KINDS: Record<string, string> = {
  createUser: 'users',
  createWallet: 'wallets',
  addPaymentMethod: 'payment_methods',
  createTransaction: 'transactions',
  enableRoundups: 'roundup_settings',
  processRoundup: 'purchases',
  transferRoundups: 'roundup_transfers',
  createBnplPayment: 'bnpl_payments',
  processPayment: 'wallet_payments',
  sendP2P: 'p2p_transfers',
  createCard: 'cards',
  sandboxAdvanceClock: 'clock',
}

// ${kind.name.field}, as in seed fixtures (docs/seed.md).
const REFERENCE = /\$\{(\w+)\.(\w+)\.(\w+)\}/g

/** What the steps of a fixture made so far, and the kind of each, by step name. */
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

/** Run steps through the operations that serve them, as the caller of the trigger. */
function runSteps(steps: readonly Step[], lookup: OperationLookup, caller: RawInput, made: Made): void {
  for (const step of steps) {
    const spec = lookup(step.op)
    if (spec === undefined) throw new Error(`fixture step ${step.op} is not served by this sandbox`)
    const result = spec.run({
      ...caller,
      query: {},
      params: resolve(step.params ?? {}, made) as Record<string, string>,
      body: resolve(step.body, made),
      setHeaders: () => undefined,
    })
    // Triggers run inside one SQLite transaction, so every step must be synchronous.
    if (result instanceof Promise) throw new Error(`fixture step ${step.op} is not synchronous`)
    made.objects[step.as] = result as Record<string, unknown>
    made.kinds.set(step.as, KINDS[step.op] ?? step.op)
  }
}

/**
 * Create what an event of `type` needs and make its producer run, if the sandbox serves it. A
 * producer that refuses (a declined card answering 402) leaves nothing; the caller then looks for
 * the event and synthesises it when it is missing. Returns what the steps created.
 */
export function runFixture(
  type: EventName,
  lookup: OperationLookup,
  caller: RawInput,
  transaction: <T>(fn: () => T) => T,
  settings: FixtureSettings,
): FixtureObjects {
  const fixture = FIXTURES[type]
  const made: Made = {objects: {}, kinds: new Map()}
  runSteps([...BASE(fixture.funded === true), ...(fixture.setup?.() ?? [])], lookup, caller, made)
  const produce = typeof fixture.produce === 'function' ? fixture.produce(settings) : (fixture.produce ?? [])
  if (produce.length > 0 && produce.every((s) => lookup(s.op) !== undefined)) {
    try {
      // In a savepoint: a producer that refuses part-way leaves nothing behind.
      transaction(() => runSteps(produce, lookup, caller, made))
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
    }
  }
  return made.objects
}
