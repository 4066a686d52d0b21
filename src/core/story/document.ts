import type {LedgerEntry, TransactionView, WalletView} from '../../contract/index.js'
import {majorToMinor} from '../../contract/money/amounts.js'
import type {Currency} from '../../contract/money/currencies.js'
import type {Story} from '../../contract/story.js'
import type {SourceStory} from './read.js'
import type {Redactor} from './redact.js'

/**
 * A story read from a service as the document the sandbox loads and `--file` writes (the seed
 * fixture format, with history): each record named by the document, every source id replaced by a
 * reference to the record it names, every customer datum redacted. Each wallet whose window starts
 * after its first entry opens with an `adjustment` of the balance it had then, so that its ledger
 * comes to its balance; against a service that shows no ledger, that opening is its whole balance.
 */

type Loose = Record<string, unknown>
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)
const amount = (v: unknown): string =>
  typeof v === 'bigint' ? String(v) : String(Math.trunc(Number(v ?? 0)))
const ref = (section: string, name: string) => `\${${section}.${name}.id}`
/** An id of the platform's form, which no redacted text may keep. */
const SOURCE_ID = /^[a-z]{2,5}_[0-9a-f]{16,32}$/

export interface StoryDocument {
  story: Story
  /** Each source id and the reference of the record made of it (`${wallets.customer_usd.id}`). */
  refs: Map<string, string>
}

type Sections = Required<
  Pick<
    Story,
    | 'users'
    | 'wallets'
    | 'payment_methods'
    | 'transactions'
    | 'events'
    | 'bnpl_payments'
    | 'roundup_settings'
    | 'roundups'
  >
>

class Builder {
  readonly s: Sections = {
    users: {},
    wallets: {},
    payment_methods: {},
    transactions: {},
    events: {},
    bnpl_payments: {},
    roundup_settings: {},
    roundups: {},
  }
  readonly ledger: NonNullable<Story['ledger_entries']> = []
  readonly refs = new Map<string, string>()
  #counterparties = 0

  constructor(
    readonly source: SourceStory,
    readonly r: Redactor,
  ) {}

  /** The reference a source id has in the document, or a hash standing for it. */
  idOrHash(id: string): string {
    return (
      this.refs.get(id) ??
      (SOURCE_ID.test(id) ? `${id.split('_', 1)[0]}_${this.r.hash(id, 24)}` : this.r.text(id))
    )
  }

  /** Any value of the source with its ids, customer data and long numbers redacted. */
  value(v: unknown, key = ''): unknown {
    if (typeof v === 'string') {
      if (/^e-?mail$/i.test(key)) return this.r.email(v)
      if (/^(first_?name|firstName)$/i.test(key)) return this.r.name(v).first
      if (/^(last_?name|lastName)$/i.test(key)) return this.r.name(v).last
      if (/^external_?id$/i.test(key)) return this.r.externalId(v)
      return SOURCE_ID.test(v) ? this.idOrHash(v) : this.r.text(v)
    }
    if (Array.isArray(v)) return v.map((x) => this.value(x))
    if (v !== null && typeof v === 'object') {
      if (key === 'metadata') return this.r.metadata(v as Loose)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.value(x, k)]))
    }
    return typeof v === 'bigint' ? String(v) : v
  }

  user(): string {
    const u = this.source.user
    const id = String(u.id)
    const email = str(u.email)
    const fake = this.r.name(email ?? id)
    const externalId = str(u.external_id)
    const redacted = {
      email: this.r.email(email ?? id),
      first_name: fake.first,
      last_name: fake.last,
      ...(externalId === undefined ? {} : {external_id: this.r.externalId(externalId)}),
      created_at: str(u.created_at) ?? this.source.since,
    }
    this.r.person(
      {email, firstName: str(u.first_name), lastName: str(u.last_name), externalId},
      {email: redacted.email, firstName: fake.first, lastName: fake.last, externalId: redacted.external_id},
    )
    this.s.users.customer = redacted
    this.refs.set(id, ref('users', 'customer'))
    return ref('users', 'customer')
  }

  wallet(w: WalletView, user: string, owner: string): void {
    const name = `${owner}_${w.currency.toLowerCase()}`
    this.s.wallets[name] = {
      user,
      currency: w.currency as Currency,
      status: w.status as never,
      ...(str(w.label) === undefined ? {} : {label: this.r.text(w.label!).slice(0, 50)}),
      created_at: w.createdAt,
      balance: {
        available: amount(w.balance.available),
        pending: amount(w.balance.pending),
        reserved: amount(w.balance.reserved),
      },
    }
    this.refs.set(w.id, ref('wallets', name))
  }

  /** A wallet of someone else that the story moves money to or from: an empty wallet of a stand-in. */
  counterparty(walletId: string, currency: string): string {
    const known = this.refs.get(walletId)
    if (known !== undefined) return known
    const name = `counterparty_${++this.#counterparties}`
    const fake = this.r.name(walletId)
    this.s.users[name] = {
      email: this.r.email(walletId),
      first_name: fake.first,
      last_name: fake.last,
      created_at: this.source.since,
    }
    const wallet = `${name}_${currency.toLowerCase()}`
    this.s.wallets[wallet] = {
      user: ref('users', name),
      currency: currency as Currency,
      status: 'active',
      created_at: this.source.since,
      balance: {available: '0', pending: '0', reserved: '0'},
    }
    this.refs.set(walletId, ref('wallets', wallet))
    return ref('wallets', wallet)
  }
}

/** The wallet whose history lists a record: the user's own side of it. */
function walletOf(t: TransactionView, own: ReadonlySet<string>): string | undefined {
  if (t.type === 'transfer_out') return t.sourceWalletId
  if (t.type === 'transfer_in') return t.destinationWalletId
  for (const w of [t.destinationWalletId, t.sourceWalletId]) if (w !== undefined && own.has(w)) return w
  return t.destinationWalletId ?? t.sourceWalletId
}

/** A test method's id (`pm_card_visa`) stays; a saved one is its record; any other is a hash. */
function methodRef(b: Builder, id: string | undefined): string | undefined {
  if (id === undefined) return undefined
  const known = b.refs.get(id)
  if (known !== undefined) return known
  if (/^pm_[a-z]+(_[a-z0-9]+)+$/.test(id) && !SOURCE_ID.test(id)) return id
  return `pm_redacted_${b.r.hash(id, 12)}`
}

/** The story of `source` as a document, redacted by `r`. */
export function storyDocument(source: SourceStory, r: Redactor): StoryDocument {
  const b = new Builder(source, r)
  const user = b.user()
  for (const w of source.wallets) b.wallet(w, user, 'customer')
  source.paymentMethods.forEach((m, i) => {
    const type = String(m.type)
    b.s.payment_methods[`pm${i + 1}`] = {
      user,
      type: type as never,
      ...(str(m.brand) === undefined ? {} : {brand: String(m.brand).slice(0, 20)}),
      ...(str(m.last4) === undefined
        ? {}
        : {last4: String(m.last4).replace(/\D/g, '').slice(-4).padStart(4, '0')}),
      ...(str(m.bankName) === undefined ? {} : {bank_name: r.text(String(m.bankName)).slice(0, 50)}),
      created_at: str(m.createdAt) ?? source.since,
    }
    b.refs.set(String(m.id), ref('payment_methods', `pm${i + 1}`))
  })
  addTransactions(b, source)
  addEvents(b, source)
  addProducts(b, source, user)
  const story: Story = {version: 1, name: 'import', clock: source.now, ...b.s, ledger_entries: b.ledger}
  for (const section of Object.keys(b.s) as (keyof Sections)[])
    if (Object.keys(story[section] ?? {}).length === 0) delete story[section]
  return {story, refs: b.refs}
}

// Long: each record's fields in turn, then each wallet's opening and entries.
function addTransactions(b: Builder, source: SourceStory): void {
  const own = new Set(source.wallets.map((w) => w.id))
  for (const [i, t] of source.transactions.entries()) b.refs.set(t.id, ref('transactions', `t${i + 1}`))
  const openings: Story['ledger_entries'] = []
  const entries: (LedgerEntry & {walletId: string})[] = []
  for (const w of source.wallets) {
    const list = source.ledger?.get(w.id) ?? []
    entries.push(...list.map((e) => ({...e, walletId: w.id})))
    openings.push(...opening(b, w, list[0], source))
  }
  source.transactions.forEach((t, i) => {
    const wallet = walletOf(t, own) ?? ''
    const other = (id: string | undefined) => (id === undefined ? undefined : b.counterparty(id, t.currency))
    const refTo = (id: unknown) => (typeof id === 'string' ? b.refs.get(id) : undefined)
    const method = methodRef(b, t.paymentMethodId)
    b.s.transactions[`t${i + 1}`] = {
      wallet: b.counterparty(wallet, t.currency),
      type: t.type as never,
      status: t.status as never,
      ...(str(t.method) === undefined ? {} : {method: t.method as never}),
      amount: amount(t.amount),
      currency: t.currency as Currency,
      fee: amount(t.fee),
      net_amount: amount(t.netAmount),
      ...(t.sourceWalletId === undefined ? {} : {from: other(t.sourceWalletId)}),
      ...(t.destinationWalletId === undefined ? {} : {to: other(t.destinationWalletId)}),
      ...(method === undefined ? {} : {payment_method: method}),
      ...(str(t.description) === undefined ? {} : {description: r(b, t.description!)}),
      ...(t.metadata === undefined ? {} : {metadata: b.r.metadata(t.metadata as Loose)}),
      ...(refTo(t.pairedTransactionId) === undefined ? {} : {paired_with: refTo(t.pairedTransactionId)}),
      ...(refTo(t.originalTransactionId) === undefined ? {} : {refund_of: refTo(t.originalTransactionId)}),
      ...(t.refundedAmount === undefined ? {} : {refunded_amount: amount(t.refundedAmount)}),
      ...(str(t.failureReason) === undefined ? {} : {failure_reason: r(b, String(t.failureReason))}),
      created_at: t.createdAt,
      ...(str(t.completedAt) === undefined ? {} : {completed_at: t.completedAt!}),
      ...(str(t.estimatedCompletion) === undefined ? {} : {estimated_completion: t.estimatedCompletion!}),
    }
  })
  // Every wallet's entries in the order they were posted: by time, a wallet's own order kept.
  const ordered = entries
    .map((e, n) => ({e, n}))
    .sort((x, y) => Date.parse(x.e.createdAt) - Date.parse(y.e.createdAt) || x.n - y.n)
  b.ledger.push(...openings)
  for (const {e} of ordered)
    b.ledger.push({
      transaction: b.refs.get(e.transactionId)!,
      wallet: b.refs.get(e.walletId)!,
      bucket: e.bucket,
      amount: amount(e.amount),
      at: e.createdAt,
    })
}

/** Free text, redacted, with the ids it quotes (`Round-ups rtr_…`) as hashes: text is not resolved. */
const r = (b: Builder, text: string) =>
  b.r
    .text(text)
    .replace(/\b[a-z]{2,5}_[0-9a-f]{16,32}\b/g, (id) => `${id.split('_', 1)[0]}_${b.r.hash(id, 24)}`)
    .slice(0, 1000)

/** The balance a wallet had before the window's first entry (its whole balance without a ledger), as an adjustment. */
function opening(
  b: Builder,
  w: WalletView,
  first: LedgerEntry | undefined,
  source: SourceStory,
): NonNullable<Story['ledger_entries']> {
  const buckets = ['available', 'pending', 'reserved'] as const
  const before = Object.fromEntries(
    buckets.map((k) => {
      const after = BigInt(amount((first?.balanceAfter ?? w.balance)[k]))
      return [
        k,
        first === undefined ? after : first.bucket === k ? after - BigInt(amount(first.amount)) : after,
      ]
    }),
  ) as Record<(typeof buckets)[number], bigint>
  if (buckets.every((k) => before[k] === 0n)) return []
  const created = Date.parse(w.createdAt)
  const start = Math.max(Date.parse(source.since), Number.isFinite(created) ? created : 0)
  const at = new Date(
    first === undefined ? start : Math.min(start, Date.parse(first.createdAt)),
  ).toISOString()
  const name = `opening_${w.currency.toLowerCase()}`
  const total = buckets.reduce((sum, k) => sum + before[k], 0n)
  const wallet = b.refs.get(w.id)!
  b.s.transactions[name] = {
    wallet,
    type: 'adjustment',
    status: 'completed',
    amount: String(total),
    currency: w.currency as Currency,
    fee: '0',
    net_amount: String(total),
    to: wallet,
    description: 'Opening balance',
    created_at: at,
    completed_at: at,
  }
  return buckets
    .filter((k) => before[k] !== 0n)
    .map((k) => ({transaction: ref('transactions', name), wallet, bucket: k, amount: String(before[k]), at}))
}

function addEvents(b: Builder, source: SourceStory): void {
  source.events.forEach(({summary, detail}, i) => {
    b.refs.set(summary.id, ref('events', `e${i + 1}`))
    b.s.events[`e${i + 1}`] = {
      type: summary.event as never,
      at: summary.timestamp,
      data: b.value(summary.data) as Loose,
      ...(detail === undefined
        ? {}
        : {
            deliveries: detail.deliveries.map((d) => ({
              url: b.r.url(d.url),
              status: d.status,
              created_at: d.createdAt,
              ...(d.completedAt === null ? {} : {completed_at: d.completedAt}),
              attempts: d.attemptLog.map((a) => ({
                at: a.at,
                status: a.status,
                error: a.error === null ? null : b.r.text(a.error).slice(0, 2048),
              })),
            })),
          }),
    }
  })
}

// Long: BNPL plans with their schedules, then round-up settings and pending round-ups.
function addProducts(b: Builder, source: SourceStory, user: string): void {
  source.bnplPayments.forEach((p, i) => {
    const wallet = b.refs.get(String(p.walletId))
    const schedule = Array.isArray(p.schedule) ? (p.schedule as Loose[]) : []
    if (wallet === undefined || schedule.length === 0) return
    const txn = (id: unknown) => (typeof id === 'string' ? b.refs.get(id) : undefined)
    b.refs.set(String(p.id), ref('bnpl_payments', `b${i + 1}`))
    b.s.bnpl_payments[`b${i + 1}`] = {
      user,
      wallet,
      merchant_name: String(p.merchantName ?? 'merchant'),
      ...(str(p.description) === undefined ? {} : {description: r(b, String(p.description))}),
      amount: amount(p.amount),
      currency: p.currency as Currency,
      status: p.status as never,
      ...(str(p.failureReason) === undefined ? {} : {failure_reason: r(b, String(p.failureReason))}),
      created_at: String(p.createdAt),
      updated_at: String(p.updatedAt ?? p.createdAt),
      ...(str(p.completedAt) === undefined ? {} : {completed_at: String(p.completedAt)}),
      ...(str(p.cancelledAt) === undefined ? {} : {cancelled_at: String(p.cancelledAt)}),
      ...(str(p.failedAt) === undefined ? {} : {failed_at: String(p.failedAt)}),
      installments: schedule.map((s) => ({
        amount: amount(s.amount),
        due_at: String(s.dueAt),
        status: s.status as never,
        ...(str(s.paidAt) === undefined ? {} : {paid_at: String(s.paidAt)}),
        ...(txn(s.transactionId) === undefined ? {} : {transaction: txn(s.transactionId)}),
        ...(txn(s.refundTransactionId) === undefined ? {} : {refund_transaction: txn(s.refundTransactionId)}),
        ...(str(s.failureReason) === undefined ? {} : {failure_reason: r(b, String(s.failureReason))}),
      })),
    }
  })
  const s = source.roundupSettings
  const currency = str(s?.currency) as Currency | undefined
  if (s !== undefined && str(s.created_at) !== undefined && currency !== undefined) {
    // A wallet stands in for the destination; a bank account is not recreated (the story names it).
    const destination = str(s.destination_account_id)?.startsWith('wal_')
      ? str(s.destination_account_id)
      : undefined
    b.s.roundup_settings.customer = {
      user,
      enabled: s.enabled === true,
      multiplier: Number(s.multiplier) as never,
      max_roundup_amount: String(majorToMinor(Number(s.max_roundup_amount), currency)),
      currency: currency as never,
      ...(destination === undefined ? {} : {destination: b.counterparty(destination, currency)}),
      created_at: String(s.created_at),
      updated_at: String(s.updated_at ?? s.created_at),
    }
  }
  source.pendingRoundups.forEach((p, i) => {
    const c = String(p.currency) as Currency
    b.refs.set(String(p.id), ref('roundups', `r${i + 1}`))
    b.s.roundups[`r${i + 1}`] = {
      user,
      purchase_id: `purchase-${b.r.hash(`purchase:${String(p.transaction_id)}`)}`,
      merchant_name: String(p.merchant_name ?? 'merchant'),
      amount: String(majorToMinor(Number(p.amount), c)),
      roundup_amount: String(majorToMinor(Number(p.roundup_amount), c)),
      multiplier: Number(p.multiplier) as never,
      capped: p.capped === true,
      currency: c as never,
      status: 'pending',
      processed_at: String(p.processed_at),
    }
  })
}
