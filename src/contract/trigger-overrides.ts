import {z} from 'zod'
import {BnplPaymentSchema, CreateBnplPaymentSchema} from './bnpl.js'
import type {EventName} from './events/envelope.js'
import {CurrencySchema, MetadataSchema} from './fields.js'
import {parseMinor} from './money/amounts.js'
import {EnableRoundupsSchema, ProcessRoundupSchema, RoundupSchema, RoundupTransferSchema} from './roundups.js'
import {CreateTransactionSchema, TransactionSchema} from './transactions.js'
import {
  CreateCardRequestSchema,
  P2PRequestSchema,
  P2PTransferSchema,
  VirtualCardSchema,
  WalletPaymentRequestSchema,
  WalletPaymentSchema,
} from './wallet-product.js'
import {CreateWalletSchema, WalletSchema} from './wallets.js'

/**
 * What a trigger may be told about the records its event is about (`webhooks trigger --user
 * --wallet --set field=value`, `POST /_sandbox/trigger`): one table, read by the sandbox to check
 * and apply overrides, by the CLI to check them before sending, and by `--help` to list them.
 * Every rule is the one of the endpoint that creates the record (docs/webhooks.md#webhooks-trigger).
 */

/** How a value is typed on a command line: an amount, a number, or text as it is. */
export type OverrideForm = 'amount' | 'number' | 'text'

export interface SettableField {
  /** The rule of the endpoint that sets the field. */
  schema: z.ZodType
  form: OverrideForm
  /** A map (metadata) is set key by key: `metadata.order=42`. */
  map?: true
}

export interface EventOverrides {
  /** What the event is about, in words. */
  record: string
  /** The fields of that record: the names `--set` may use. */
  fields: readonly string[]
  /** What `--user` names for this event, or why it takes none. */
  user: {is: string} | {refused: string}
  /** What `--wallet` names for this event, or why it takes none. */
  wallet: {is: string} | {refused: string}
  /** The fields that may be set, and their rules. */
  set: Readonly<Record<string, SettableField>>
  /** Why a field of the record cannot be set, where "the flow sets it" says too little. */
  why?: Readonly<Record<string, string>>
}

const keys = (schema: z.ZodObject) => Object.keys(schema.shape)

const amount: SettableField = {schema: CreateTransactionSchema.shape.amount, form: 'amount'}
const currency: SettableField = {schema: CurrencySchema, form: 'text'}
const text = (schema: z.ZodType): SettableField => ({schema, form: 'text'})
const metadata: SettableField = {schema: MetadataSchema, form: 'text', map: true}

const USER = {is: 'the user the records belong to (default: a new user)'}
const WALLET = (role: string) => ({is: `${role} (default: the user's wallet in the currency, or a new one)`})

const transaction = (wallet: string): EventOverrides => ({
  record: 'the transaction',
  fields: keys(TransactionSchema),
  user: USER,
  wallet: WALLET(wallet),
  set: {
    amount,
    currency,
    description: text(CreateTransactionSchema.shape.description),
    metadata,
  },
})

const bnpl: EventOverrides = {
  record: 'the BNPL payment',
  fields: keys(BnplPaymentSchema),
  user: USER,
  wallet: WALLET('the wallet the instalments are collected from'),
  set: {
    amount: {schema: CreateBnplPaymentSchema.shape.amount, form: 'amount'},
    currency,
    merchantName: text(CreateBnplPaymentSchema.shape.merchantName),
    description: text(CreateBnplPaymentSchema.shape.description),
  },
}

const roundupWhy = {
  amount: 'it is computed: the spare change of the purchase times the multiplier, capped',
}

/** The overrides of every event the spec names. */
export const TRIGGER_OVERRIDES: Readonly<Record<EventName, EventOverrides>> = {
  'wallet.created': {
    record: 'the wallet',
    fields: keys(WalletSchema),
    user: {is: 'the user the wallet is created for (default: a new user)'},
    wallet: {refused: 'the event is the creation of a new wallet; --user chooses whose'},
    set: {currency, label: text(CreateWalletSchema.shape.label)},
  },
  'transaction.completed': transaction('the wallet paid into by card'),
  'transaction.failed': transaction('the wallet a declined card pays into'),
  'transfer.completed': transaction('the wallet the transfer is paid from, which must hold the amount'),
  'transfer.failed': transaction(
    'the wallet a withdrawal to a declined card is made from, which must hold the amount',
  ),
  'roundup.processed': {
    record: 'the round-up',
    fields: ['id', 'userId', 'walletId', 'transactionId', 'amount', 'currency', 'createdAt'],
    user: USER,
    wallet: WALLET('the wallet in the round-up currency'),
    set: {currency, transactionId: text(ProcessRoundupSchema.shape.transaction_id)},
    why: roundupWhy,
  },
  'roundupsvc.roundup.processed': {
    record: 'the round-up',
    fields: keys(RoundupSchema),
    user: USER,
    wallet: WALLET('the wallet in the round-up currency'),
    set: {
      amount: {schema: ProcessRoundupSchema.shape.amount, form: 'number'},
      currency,
      merchant_name: text(ProcessRoundupSchema.shape.merchant_name),
      transaction_id: text(ProcessRoundupSchema.shape.transaction_id),
      multiplier: {schema: EnableRoundupsSchema.shape.multiplier, form: 'number'},
    },
    why: {roundup_amount: roundupWhy.amount},
  },
  'roundupsvc.transfer.completed': {
    record: 'the round-up transfer',
    fields: keys(RoundupTransferSchema),
    user: USER,
    wallet: WALLET('the wallet the round-ups are taken from, which must hold them'),
    set: {currency},
    why: {amount: 'it is the total of the pending round-ups'},
  },
  'bnplsvc.payment.created': bnpl,
  'bnplsvc.payment.completed': {
    ...bnpl,
    wallet: WALLET('the wallet all four instalments are collected from, which must hold them'),
  },
  'bnplsvc.payment.failed': {
    ...bnpl,
    wallet: WALLET('the wallet the first instalment cannot be collected from, which must be short of it'),
  },
  'walletsvc.payment.completed': {
    record: 'the wallet payment',
    fields: keys(WalletPaymentSchema),
    user: USER,
    wallet: WALLET('the wallet paid from, which must hold the amount'),
    set: {
      amount: {schema: WalletPaymentRequestSchema.shape.amount, form: 'amount'},
      currency,
      merchantName: text(WalletPaymentRequestSchema.shape.merchantName),
    },
  },
  'walletsvc.p2p.sent': {
    record: 'the peer-to-peer transfer',
    fields: keys(P2PTransferSchema),
    user: {is: 'the sender (default: a new user); the recipient is always a new user'},
    wallet: WALLET("the sender's wallet, which must hold the amount"),
    set: {
      amount: {schema: P2PRequestSchema.shape.amount, form: 'amount'},
      currency,
      note: text(P2PRequestSchema.shape.note),
    },
  },
  'walletsvc.card.created': {
    record: 'the virtual card',
    fields: keys(VirtualCardSchema),
    user: USER,
    wallet: WALLET('the wallet the card spends from'),
    set: {label: text(CreateCardRequestSchema.shape.label)},
  },
}

/** A problem with an override: the body field it is about (`set.amount`, `wallet`) and why. */
export interface OverrideProblem {
  path: (string | number)[]
  message: string
}

/** What a trigger is told besides its event. */
export interface TriggerOverrideInput {
  user?: string | undefined
  wallet?: string | undefined
  set?: Readonly<Record<string, unknown>> | undefined
}

/** The settable fields of an event as they are written (`metadata.<key>` for a map). */
export function settableNames(event: EventName): string[] {
  const o = TRIGGER_OVERRIDES[event]
  return Object.entries(o.set).map(([name, f]) => (f.map ? `${name}.<key>` : name))
}

function firstIssue(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = schema.safeParse(value)
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? 'invalid')
}

/** The problem with one `--set name=value`, if any. */
function fieldProblem(event: EventName, name: string, value: unknown): string | undefined {
  const o = TRIGGER_OVERRIDES[event]
  const settable = settableNames(event).join(', ')
  const dot = name.indexOf('.')
  const head = dot < 0 ? name : name.slice(0, dot)
  const field = Object.hasOwn(o.set, head) ? o.set[head] : undefined
  if (field === undefined) {
    if (!o.fields.includes(head)) {
      return `${event} has no field "${name}": the fields of ${o.record} are ${o.fields.join(', ')} (settable: ${settable})`
    }
    const why = o.why?.[head] ?? 'the flow that records the event sets it'
    return `${head} of ${o.record} cannot be set for ${event}: ${why} (settable: ${settable})`
  }
  if (field.map === true) {
    if (dot < 0) return `${head} is set key by key: ${head}.<key>=value`
    const issue = firstIssue(field.schema, {[name.slice(dot + 1)]: value})
    return issue === undefined ? undefined : `${issue}`
  }
  if (dot >= 0) return `${head} of ${o.record} has no fields of its own: set ${head}=value`
  return firstIssue(field.schema, value)
}

/**
 * Everything wrong with a trigger's overrides for `event`: an option the event takes none of, a
 * field its record does not have or does not let be set, a value its rule refuses. Checked by the
 * sandbox (as the request body's rule) and by the CLI (before sending).
 */
export function overrideProblems(event: EventName, input: TriggerOverrideInput): OverrideProblem[] {
  const o = TRIGGER_OVERRIDES[event]
  const problems: OverrideProblem[] = []
  for (const option of ['user', 'wallet'] as const) {
    const rule = o[option]
    if (input[option] !== undefined && 'refused' in rule) {
      problems.push({path: [option], message: `${event} takes no ${option}: ${rule.refused}`})
    }
  }
  for (const [name, value] of Object.entries(input.set ?? {})) {
    const problem = fieldProblem(event, name, value)
    if (problem !== undefined) problems.push({path: ['set', name], message: problem})
  }
  return problems
}

/**
 * A `--set` value typed on a command line as its field takes it: an amount as an integer in the
 * smallest unit (5000) or a decimal with its currency (50.00USD, which also says the currency), a
 * number as a number; text as it is. An unknown field's value stays text, for overrideProblems to
 * name the field. A text that cannot be the field's kind is thrown as a RangeError saying why.
 */
export function overrideFromText(
  event: EventName,
  name: string,
  text: string,
  currency: string | undefined,
): {value: unknown; currency?: string} {
  const field = TRIGGER_OVERRIDES[event].set[name]
  if (field?.form === 'amount') {
    const read = parseMinor(text, currency)
    return read.currency === undefined ? {value: read.minor} : {value: read.minor, currency: read.currency}
  }
  if (field?.form === 'number') {
    const n = Number(text)
    if (text.trim() === '' || !Number.isFinite(n)) throw new RangeError(`"${text}" is not a number`)
    return {value: n}
  }
  return {value: text}
}

/** The overrides each event takes, one line each, for `webhooks trigger --help`. */
export function overridesHelp(): string {
  return Object.entries(TRIGGER_OVERRIDES)
    .map(([event, o]) => {
      const options = [
        'is' in o.user ? '--user' : '',
        'is' in o.wallet ? '--wallet' : '',
        `--set ${settableNames(event as EventName).join(', ')}`,
      ].filter((s) => s !== '')
      return `  ${event}: ${options.join(', ')}`
    })
    .join('\n')
}

/** The body field the trigger's overrides are sent in: field names to values, dotted for a map's keys. */
export const TriggerSetSchema = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((set) => Object.keys(set).length <= 60, {message: 'At most 60 fields'})
  .describe(
    'fields of the record the event is about, by name (`metadata.<key>` for a metadata key): which each event takes is listed in docs/webhooks.md',
  )
