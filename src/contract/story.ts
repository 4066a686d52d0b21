import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {BNPL_INSTALLMENT_STATUSES, BNPL_STATUSES} from './bnpl.js'
import {EVENT_NAMES} from './events/names.js'
import {CurrencySchema, ID_MAX_LENGTH, METADATA_LIMITS, URL_MAX_LENGTH} from './fields.js'
import {ROUNDUP_CURRENCIES} from './money/currencies.js'
import {PAYMENT_METHOD_TYPES} from './payment-methods.js'
import {ROUNDUP_MULTIPLIERS} from './roundups.js'
import {PAYMENT_METHODS, TRANSACTION_STATUSES, TRANSACTION_TYPES} from './transactions.js'
import {LEDGER_BUCKETS, WALLET_STATUSES} from './wallets.js'

/**
 * A customer's story as a document (`payctl sandbox import`, and `payctl seed` of a story fixture):
 * records in the fixture format's sections, named by the document and referring to each other as
 * `${section.name.id}`, with what history needs that the API cannot create (a record's time, a
 * failed transaction's status and code, the ledger entries that made each balance, the deliveries
 * of each event). The sandbox loads it in one transaction under new ids, checked whole: it comes
 * from a file anyone may edit, so every field is bounded and every reference must resolve.
 */

/** The most records of one section, and of the ledger, one document may hold. */
export const STORY_LIMITS = {records: 200_000, ledger: 1_000_000, bytes: 256 * 1024 * 1024} as const

const NAME = /^[A-Za-z][\w-]{0,63}$/
export const STORY_SECTIONS = [
  'users',
  'wallets',
  'payment_methods',
  'transactions',
  'events',
  'bnpl_payments',
  'roundup_settings',
  'roundups',
] as const
export type StorySection = (typeof STORY_SECTIONS)[number]

/** `${section.name.id}`: the record `name` of `section` in the same document. */
const ref = (section: StorySection) =>
  z
    .string()
    .regex(
      new RegExp(`^\\$\\{${section}\\.[A-Za-z][\\w-]{0,63}\\.id\\}$`),
      `a reference to a record of ${section}: \${${section}.NAME.id}`,
    )

/** The name a reference points at: `ada_usd` of `${wallets.ada_usd.id}`. */
export const refName = (reference: string): string => reference.slice(2, -4).split('.').slice(1).join('.')

const Time = z.iso.datetime({offset: true, error: 'an ISO 8601 time with its offset (2026-11-20T10:00:00Z)'})
const Minor = z.string().regex(/^\d{1,40}$/, 'an integer in the smallest unit, as text ("1050")')
const Signed = z.string().regex(/^-?\d{1,40}$/, 'a signed integer in the smallest unit, as text ("-1050")')
const Text = (max: number) => z.string().min(1).max(max)
const section = <T extends z.ZodType>(record: T) =>
  z
    .record(z.string().regex(NAME, 'names are a letter, then letters, digits, _ and -'), record)
    .refine((s) => Object.keys(s).length <= STORY_LIMITS.records, `at most ${STORY_LIMITS.records} records`)
    .optional()

const Balance = z.strictObject({available: Minor, pending: Minor, reserved: Minor})

const UserRecord = z.strictObject({
  email: z.email().max(254),
  first_name: Text(100),
  last_name: Text(100),
  external_id: Text(ID_MAX_LENGTH).optional(),
  created_at: Time,
})

const WalletRecord = z.strictObject({
  user: ref('users'),
  currency: CurrencySchema,
  status: z.enum(WALLET_STATUSES),
  label: z.string().max(50).optional(),
  created_at: Time,
  balance: Balance.describe("the wallet's balance when read: its ledger must come to it"),
})

const PaymentMethodRecord = z.strictObject({
  user: ref('users'),
  type: z.enum(PAYMENT_METHOD_TYPES),
  brand: Text(20).optional(),
  last4: z
    .string()
    .regex(/^[0-9a-z]{4}$/, 'at most the last four digits')
    .optional(),
  bank_name: Text(50).optional(),
  created_at: Time,
})

const Metadata = z
  .record(z.string().min(1).max(METADATA_LIMITS.keyLength), z.string().max(METADATA_LIMITS.valueLength))
  .refine((m) => Object.keys(m).length <= METADATA_LIMITS.keys, `at most ${METADATA_LIMITS.keys} keys`)

const TransactionRecord = z.strictObject({
  wallet: ref('wallets').describe('the wallet whose history lists the record'),
  type: z.enum(TRANSACTION_TYPES),
  status: z.enum(TRANSACTION_STATUSES),
  method: z.enum(PAYMENT_METHODS).optional(),
  amount: Minor,
  currency: CurrencySchema,
  fee: Minor,
  net_amount: Signed,
  from: ref('wallets').optional(),
  to: ref('wallets').optional(),
  payment_method: z
    .string()
    .regex(/^(\$\{(payment_methods|wallets)\.[A-Za-z][\w-]{0,63}\.id\}|pm_[a-z0-9_]{1,60})$/)
    .optional()
    .describe('a saved method of the story, the paying wallet, or a test method id (pm_card_visa)'),
  description: z.string().max(1000).optional(),
  metadata: Metadata.optional(),
  paired_with: ref('transactions').optional().describe("a transfer's other leg"),
  refund_of: ref('transactions').optional(),
  refunded_amount: Minor.optional(),
  failure_reason: z.string().max(500).optional(),
  created_at: Time,
  completed_at: Time.optional(),
  estimated_completion: Time.optional(),
  settles_as: z
    .enum(['completed', 'failed'])
    .optional()
    .describe('how a processing payment ends on the sandbox clock (default completed)'),
})

const LedgerEntry = z.strictObject({
  transaction: ref('transactions'),
  wallet: ref('wallets'),
  bucket: z.enum(LEDGER_BUCKETS),
  amount: Signed,
  at: Time,
})

const Attempt = z.strictObject({
  at: Time,
  status: z.number().int().min(0).max(999).nullable(),
  error: z.string().max(2048).nullable(),
})

const Delivery = z.strictObject({
  url: z.string().max(URL_MAX_LENGTH).nullable(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  created_at: Time,
  completed_at: Time.optional(),
  attempts: z.array(Attempt).max(100),
})

const EventRecord = z.strictObject({
  type: z.enum(EVENT_NAMES),
  at: Time,
  data: z
    .record(z.string(), z.unknown())
    .refine((d) => JSON.stringify(d).length <= 64 * 1024, 'at most 64 KiB of data'),
  deliveries: z.array(Delivery).max(100).optional(),
})

const Installment = z.strictObject({
  amount: Minor,
  due_at: Time,
  status: z.enum(BNPL_INSTALLMENT_STATUSES),
  paid_at: Time.optional(),
  transaction: ref('transactions').optional(),
  refund_transaction: ref('transactions').optional(),
  failure_reason: z.string().max(500).optional(),
})

const BnplRecord = z.strictObject({
  user: ref('users'),
  wallet: ref('wallets'),
  merchant_name: Text(200),
  description: z.string().max(1000).optional(),
  amount: Minor,
  currency: CurrencySchema,
  status: z.enum(BNPL_STATUSES),
  failure_reason: z.string().max(500).optional(),
  created_at: Time,
  updated_at: Time,
  completed_at: Time.optional(),
  cancelled_at: Time.optional(),
  failed_at: Time.optional(),
  installments: z.array(Installment).min(1).max(48),
})

const RoundupSettingsRecord = z.strictObject({
  user: ref('users'),
  enabled: z.boolean(),
  multiplier: z.literal(ROUNDUP_MULTIPLIERS),
  max_roundup_amount: Minor.describe('the cap, in the smallest unit of currency'),
  currency: z.enum(ROUNDUP_CURRENCIES),
  destination: ref('wallets').optional(),
  created_at: Time,
  updated_at: Time,
})

const RoundupRecord = z.strictObject({
  user: ref('users'),
  purchase_id: Text(ID_MAX_LENGTH).describe("the caller's purchase id"),
  merchant_name: Text(200),
  amount: Minor,
  roundup_amount: Minor,
  multiplier: z.literal(ROUNDUP_MULTIPLIERS),
  capped: z.boolean(),
  currency: z.enum(ROUNDUP_CURRENCIES),
  status: z.literal('pending').describe('a pending round-up, waiting for its transfer'),
  processed_at: Time,
})

export const StorySchema = z
  .strictObject({
    version: z.literal(1).optional(),
    name: z.string().regex(NAME).optional(),
    clock: Time.describe("the source's time when the story was read: the partner's clock moves to it"),
    users: section(UserRecord),
    wallets: section(WalletRecord),
    payment_methods: section(PaymentMethodRecord),
    transactions: section(TransactionRecord),
    ledger_entries: z
      .array(LedgerEntry)
      .max(STORY_LIMITS.ledger)
      .optional()
      .describe('every entry of every wallet, oldest first: they make the balances'),
    events: section(EventRecord),
    bnpl_payments: section(BnplRecord),
    roundup_settings: section(RoundupSettingsRecord),
    roundups: section(RoundupRecord),
  })
  .meta({id: 'SandboxStory'})
export type Story = z.infer<typeof StorySchema>

const RECORDS: Record<StorySection, z.ZodType> = {
  users: UserRecord,
  wallets: WalletRecord,
  payment_methods: PaymentMethodRecord,
  transactions: TransactionRecord,
  events: EventRecord,
  bnpl_payments: BnplRecord,
  roundup_settings: RoundupSettingsRecord,
  roundups: RoundupRecord,
}
/** The document without its records: each section checked apart, record by record. */
const StoryShell = StorySchema.extend(
  Object.fromEntries([...STORY_SECTIONS, 'ledger_entries'].map((k) => [k, z.unknown().optional()])),
)

/** Whether every record of `value` (a section's object, or the ledger's array) passes `record`, `names` checked. */
function allPass(value: unknown, record: z.ZodType, limit: number, names: boolean): boolean {
  if (value === undefined) return true
  if (value === null || typeof value !== 'object' || Array.isArray(value) !== !names) return false
  const entries = Object.entries(value)
  if (entries.length > limit) return false
  for (const [name, v] of entries) {
    if (names && !NAME.test(name)) return false
    if (!record.safeParse(v).success) return false
  }
  return true
}

/**
 * `value` itself when it is a valid story, else undefined (and StorySchema says why). The same
 * checks as StorySchema's, record by record: a story of 10,000 transactions is megabytes of
 * objects, and the whole-document parse holds a second copy of them all while it runs, then beside
 * the document. A valid story's parse is the document as it came (no field has a default or a
 * transform), so the document is kept and each record's copy is dropped as soon as it is made.
 */
export function validStory(value: unknown): Story | undefined {
  if (!StoryShell.safeParse(value).success) return undefined
  const doc = value as Record<string, unknown>
  for (const section of STORY_SECTIONS)
    if (!allPass(doc[section], RECORDS[section], STORY_LIMITS.records, true)) return undefined
  if (!allPass(doc.ledger_entries, LedgerEntry, STORY_LIMITS.ledger, false)) return undefined
  return value as Story
}

export const LoadedStorySchema = z
  .object({
    loaded: z.literal(true),
    ids: z
      .record(z.string(), z.string())
      .describe('each record of the story (`wallets.ada_usd`) and its new id'),
    clock: Time.describe("the partner's clock after the load"),
  })
  .meta({id: 'SandboxLoadedStory'})
export type LoadedStory = z.infer<typeof LoadedStorySchema>

export const storyEndpoints = {
  sandboxLoadStory: {
    operationId: 'sandboxLoadStory',
    method: 'POST',
    path: '/_sandbox/story',
    summary:
      "sandbox only: load a customer's story (records with their history, as `sandbox import` reads them) under new ids, in one transaction",
    tag: 'sandbox',
    auth: 'sandbox-admin',
    body: StorySchema,
    response: LoadedStorySchema,
    status: 200,
    errors: ['VALIDATION_ERROR'],
    enveloped: false,
    versioned: false,
    idempotent: false,
    bodyLimit: STORY_LIMITS.bytes,
  },
} as const satisfies Record<string, Endpoint>
