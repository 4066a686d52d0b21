import {defaultWalletLimits} from '../../contract/money/currencies.js'
import type {Story} from '../../contract/story.js'
import {subjectsOf} from '../event-log.js'
import type {Database, Statement} from '../storage/database.js'
import {randomHex} from '../storage/ids.js'
import {recordsOf} from './checks.js'

/**
 * The rows of a story, written with the sandbox's own SQL into the tables the features keep
 * (users, wallets, transactions, the ledger, events and their deliveries, BNPL plans, round-ups):
 * column by column from the checked document, never a shape it brings.
 */

type Id = (ref: string) => string
const opt = <T>(v: T | undefined): T | null => (v === undefined ? null : v)

const SQL = {
  user: 'INSERT INTO users (id, partner_id, email, first_name, last_name, external_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  wallet: `INSERT INTO wallets (id, partner_id, user_id, currency, status, label, available, pending, reserved,
     limit_transaction, limit_daily, limit_monthly, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  method: `INSERT INTO payment_methods (id, partner_id, user_id, type, behaviour, brand, last4, bank_name, status, created_at)
     VALUES (?, ?, ?, ?, 'succeed', ?, ?, ?, 'active', ?)`,
  transaction: `INSERT INTO transactions (id, partner_id, wallet_id, type, status, method, amount, currency, fee, net_amount,
     source_wallet_id, destination_wallet_id, payment_method_id, description, metadata, paired_id, original_id,
     refunded_amount, failure_reason, outcome, settles_at, created_at, completed_at, estimated_completion)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  owner: 'UPDATE transactions SET owner_kind = ?, owner_id = ? WHERE id = ?',
  entry: `INSERT INTO ledger_entries (partner_id, transaction_id, account, currency, amount, created_at,
     wallet_id, available_after, pending_after, reserved_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  event: 'INSERT INTO events (id, type, partner_id, data, created_at) VALUES (?, ?, ?, ?, ?) RETURNING seq',
  subject: 'INSERT OR IGNORE INTO event_subjects (subject, event_seq) VALUES (?, ?)',
  session: `INSERT INTO webhook_listen_sessions (id, partner_id, listener_key, secret, events, from_event_seq,
     last_seen_at, created_at, connected_at, ended_at) VALUES (?, ?, ?, ?, '["*"]', 0, ?, ?, NULL, ?)`,
  delivery: `INSERT INTO webhook_deliveries (id, partner_id, event_id, session_id, url, state, attempts, failures,
     last_status, last_error, created_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  attempt: `INSERT INTO webhook_attempts (delivery_id, attempt, via, started_at, signature_t, status, error)
     VALUES (?, ?, 'http', ?, ?, ?, ?)`,
  bnpl: `INSERT INTO bnpl_payments (id, partner_id, user_id, wallet_id, merchant_name, description, amount, currency,
     status, failure_reason, created_at, updated_at, completed_at, cancelled_at, failed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  installment: `INSERT INTO bnpl_installments (payment_id, number, user_id, amount, due_at, collect_at, status,
     paid_at, transaction_id, refund_transaction_id, failure_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  settings: `INSERT INTO roundup_settings (user_id, partner_id, enabled, multiplier, max_roundup_amount,
     destination_account_id, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  roundup: `INSERT INTO roundups (id, partner_id, user_id, transaction_id, merchant_name, amount, roundup_amount,
     multiplier, capped, currency, status, reason, processed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', NULL, ?)`,
  purchaseTaken: 'SELECT 1 AS taken FROM roundups WHERE partner_id = ? AND transaction_id = ?',
} as const

type Statements = {[K in Exclude<keyof typeof SQL, 'event' | 'purchaseTaken'>]: Statement} & {
  event: Statement<{seq: number}>
  purchaseTaken: Statement<{taken: number}>
}

export class StoryRows {
  readonly #s: Statements
  /** The wallets each new transaction of the story being written touches: what its events are about besides their data. */
  readonly #touches = new Map<string, string[]>()

  constructor(database: Database) {
    this.#s = Object.fromEntries(
      Object.entries(SQL).map(([k, sql]) => [k, database.prepare(sql)]),
    ) as unknown as Statements
  }

  /** Let go of what one story's rows kept for its events (its transactions' wallets). */
  forget(): void {
    this.#touches.clear()
  }

  /** Users, their wallets with the balances their ledger comes to, and their saved payment methods. */
  people(partnerId: string, story: Story, id: Id): void {
    for (const [name, u] of Object.entries(recordsOf(story, 'users')))
      this.#s.user.run(
        id(ref('users', name)),
        partnerId,
        u.email,
        u.first_name,
        u.last_name,
        opt(u.external_id),
        u.created_at,
      )
    for (const [name, w] of Object.entries(recordsOf(story, 'wallets'))) {
      const limits = defaultWalletLimits(w.currency)
      const {available, pending, reserved} = w.balance
      this.#s.wallet.run(
        id(ref('wallets', name)),
        partnerId,
        id(w.user),
        w.currency,
        w.status,
        opt(w.label),
        available,
        pending,
        reserved,
        String(limits.transaction),
        String(limits.daily),
        String(limits.monthly),
        w.created_at,
        story.clock,
      )
    }
    for (const [name, m] of Object.entries(recordsOf(story, 'payment_methods')))
      this.#s.method.run(
        id(ref('payment_methods', name)),
        partnerId,
        id(m.user),
        m.type,
        opt(m.brand),
        opt(m.last4),
        opt(m.bank_name),
        m.created_at,
      )
  }

  /**
   * The transaction records as they were. A payment still processing settles on the partner's
   * clock at its estimated completion (or, when that is past, after the sandbox's settle time).
   */
  transactions(partnerId: string, story: Story, id: Id, settleAfterSeconds: number): void {
    const clockMs = Date.parse(story.clock)
    for (const [name, t] of Object.entries(recordsOf(story, 'transactions'))) {
      const own = id(ref('transactions', name))
      const wallet = id(t.wallet)
      const other = (r: string | undefined) => (r === undefined ? null : id(r))
      const processing = t.status === 'processing'
      const settlesAt = processing
        ? Math.max(Date.parse(t.estimated_completion!), clockMs + settleAfterSeconds * 1000)
        : null
      const method = t.payment_method
      this.#s.transaction.run(
        own,
        partnerId,
        wallet,
        t.type,
        t.status,
        opt(t.method),
        t.amount,
        t.currency,
        t.fee,
        t.net_amount,
        other(t.from),
        other(t.to),
        method === undefined ? null : method.startsWith('${') ? id(method) : method,
        opt(t.description),
        t.metadata === undefined ? null : JSON.stringify(t.metadata),
        other(t.paired_with),
        other(t.refund_of),
        t.refunded_amount ?? '0',
        opt(t.failure_reason),
        processing ? (t.settles_as === 'failed' ? 'fail' : 'complete') : null,
        settlesAt,
        t.created_at,
        opt(t.completed_at),
        opt(t.estimated_completion),
      )
      this.#touches.set(
        own,
        [wallet, other(t.from), other(t.to), other(t.paired_with), other(t.refund_of)].filter(
          (w): w is string => w !== null,
        ),
      )
    }
  }

  /**
   * Each wallet's entries with the balance they left, and for each one its other side on an
   * account outside the sandbox's wallets, so that every transaction's entries add up to zero.
   */
  ledger(
    partnerId: string,
    story: Story,
    id: Id,
    after: {available: bigint; pending: bigint; reserved: bigint}[],
  ): void {
    for (const [i, e] of (story.ledger_entries ?? []).entries()) {
      const wallet = id(e.wallet)
      const txn = id(e.transaction)
      const b = after[i]!
      const currency = recordsOf(story, 'transactions')[e.transaction.slice(2, -4).split('.')[1]!]!.currency
      this.#s.entry.run(
        partnerId,
        txn,
        `${wallet}:${e.bucket}`,
        currency,
        e.amount,
        e.at,
        wallet,
        String(b.available),
        String(b.pending),
        String(b.reserved),
      )
      const negated = e.amount.startsWith('-') ? e.amount.slice(1) : e.amount === '0' ? '0' : `-${e.amount}`
      this.#s.entry.run(partnerId, txn, 'external:story', currency, negated, e.at, null, null, null, null)
    }
  }

  /**
   * The events, about the records their data names and the wallets of the transactions they name,
   * and their deliveries as they fared. A delivery needs a receiver: one listen session, ended
   * before it began, stands for the source's registrations, so that nothing new is delivered to it.
   */
  events(
    partnerId: string,
    story: Story,
    id: Id,
    data: (name: string, event: {data: Record<string, unknown>}) => Record<string, unknown>,
    at: {now: string; session: string; secret: string},
  ): void {
    const events = Object.entries(recordsOf(story, 'events'))
    if (events.some(([, e]) => (e.deliveries ?? []).length > 0))
      this.#s.session.run(
        at.session,
        partnerId,
        `story-${randomHex(8)}`,
        at.secret,
        Date.parse(at.now),
        at.now,
        Date.parse(at.now),
      )
    for (const [name, e] of events) {
      const eventId = id(ref('events', name))
      const body = data(name, e)
      const {seq} = this.#s.event.get(eventId, e.type, partnerId, JSON.stringify(body), e.at)!
      const named = subjectsOf(body)
      const about = [...named].flatMap((s) => this.#touches.get(s) ?? [])
      for (const subject of subjectsOf(body, about)) this.#s.subject.run(subject, seq)
      for (const d of e.deliveries ?? []) {
        const delivery = `dlv_${randomHex(12)}`
        const failures = d.attempts.filter(
          (a) => a.status === null || a.status < 200 || a.status > 299,
        ).length
        const last = d.attempts.at(-1)
        this.#s.delivery.run(
          delivery,
          partnerId,
          eventId,
          at.session,
          d.url,
          d.status,
          d.attempts.length,
          failures,
          last?.status ?? null,
          last?.error ?? null,
          d.created_at,
          opt(d.completed_at),
        )
        for (const [n, a] of d.attempts.entries())
          this.#s.attempt.run(delivery, n + 1, a.at, Math.floor(Date.parse(a.at) / 1000), a.status, a.error)
      }
    }
  }

  // Long: three products' rows, each written column by column as its table has them.
  /** BNPL plans with their schedules (their instalments' transactions owned by them), round-up settings and pending round-ups. */
  products(partnerId: string, story: Story, id: Id): void {
    for (const [name, p] of Object.entries(recordsOf(story, 'bnpl_payments'))) {
      const payment = id(ref('bnpl_payments', name))
      const user = id(p.user)
      this.#s.bnpl.run(
        payment,
        partnerId,
        user,
        id(p.wallet),
        p.merchant_name,
        opt(p.description),
        p.amount,
        p.currency,
        p.status,
        opt(p.failure_reason),
        p.created_at,
        p.updated_at,
        opt(p.completed_at),
        opt(p.cancelled_at),
        opt(p.failed_at),
      )
      p.installments.forEach((i, n) => {
        const txn = i.transaction === undefined ? null : id(i.transaction)
        this.#s.installment.run(
          payment,
          n + 1,
          user,
          i.amount,
          i.due_at,
          Date.parse(i.due_at),
          i.status,
          opt(i.paid_at),
          txn,
          i.refund_transaction === undefined ? null : id(i.refund_transaction),
          opt(i.failure_reason),
        )
        if (txn !== null) this.#s.owner.run('bnpl_installment', `${payment}/${n + 1}`, txn)
      })
    }
    for (const s of Object.values(recordsOf(story, 'roundup_settings')))
      this.#s.settings.run(
        id(s.user),
        partnerId,
        s.enabled ? 1 : 0,
        s.multiplier,
        s.max_roundup_amount,
        s.destination === undefined ? null : id(s.destination),
        s.currency,
        s.created_at,
        s.updated_at,
      )
    for (const [name, r] of Object.entries(recordsOf(story, 'roundups'))) {
      // A purchase is one round-up per partner: a story loaded twice keeps its round-ups apart.
      const taken = this.#s.purchaseTaken.get(partnerId, r.purchase_id) !== undefined
      this.#s.roundup.run(
        id(ref('roundups', name)),
        partnerId,
        id(r.user),
        taken ? `${r.purchase_id}-${randomHex(4)}` : r.purchase_id,
        r.merchant_name,
        r.amount,
        r.roundup_amount,
        r.multiplier,
        r.capped ? 1 : 0,
        r.currency,
        r.processed_at,
      )
    }
  }
}

const ref = (section: string, name: string) => `\${${section}.${name}.id}`
