import {
  BNPL_CANCELLABLE,
  BNPL_INSTALLMENTS,
  BNPL_INTERVAL_DAYS,
  type BnplInstallment,
  type BnplPayment,
  type BnplPaymentList,
  type BnplStatus,
  type ListBnplPaymentsQuery,
  type Prequalification,
} from '../../contract/bnpl.js'
import {
  type Currency,
  FIAT_CURRENCIES,
  isSupportedCurrency,
  minorToUsdCents,
  usdCentsToMinor,
} from '../../contract/money/currencies.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {jsonAmount} from '../http/json.js'
import {PagedList} from '../http/pagination.js'
import {requireActive} from '../money/checks.js'
import {refund} from '../money/refunds.js'
import type {Database} from '../storage/database.js'
import {randomHex} from '../storage/ids.js'
import {installmentOwner} from './schema.js'

/** A user's BNPL limit, over every pending and active payment: 1,000.00 USD at the sandbox rates. */
export const BNPL_LIMIT_USD_CENTS = 100_000n
/** The smallest purchase BNPL takes: 10.00 USD at the sandbox rates. */
export const BNPL_MINIMUM_USD_CENTS = 1_000n
/** An email whose local part carries this tag is always declined, so demos can produce declines. */
export const DECLINE_TAG = '+decline'

const DAY_MS = 86_400_000
const COLLECT_BATCH = 200

interface PaymentRow {
  seq: number
  id: string
  partner_id: string
  user_id: string
  wallet_id: string
  merchant_name: string
  description: string | null
  amount: string
  currency: Currency
  status: BnplStatus
  failure_reason: string | null
  created_at: string
  updated_at: string
  completed_at: string | null
  cancelled_at: string | null
  failed_at: string | null
}

interface InstallmentRow {
  payment_id: string
  number: number
  amount: string
  due_at: string
  collect_at: number
  status: BnplInstallment['status']
  paid_at: string | null
  transaction_id: string | null
  refund_transaction_id: string | null
  failure_reason: string | null
}

function statements(database: Database) {
  return {
    payment: database.prepare<PaymentRow>('SELECT * FROM bnpl_payments WHERE id = ? AND partner_id = ?'),
    paymentById: database.prepare<PaymentRow>('SELECT * FROM bnpl_payments WHERE id = ?'),
    openOf: database.prepare<Pick<PaymentRow, 'id' | 'amount' | 'currency'>>(
      "SELECT id, amount, currency FROM bnpl_payments WHERE user_id = ? AND status IN ('pending', 'active')",
    ),
    insertPayment: database.prepare(
      `INSERT INTO bnpl_payments (id, partner_id, user_id, wallet_id, merchant_name, description, amount, currency,
         status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    ),
    setStatus: database.prepare(
      `UPDATE bnpl_payments SET status = ?, failure_reason = ?, updated_at = ?, completed_at = ?, cancelled_at = ?,
         failed_at = ? WHERE id = ?`,
    ),
    installments: database.prepare<InstallmentRow>(
      'SELECT * FROM bnpl_installments WHERE payment_id = ? ORDER BY number',
    ),
    insertInstallment: database.prepare(
      `INSERT INTO bnpl_installments (payment_id, number, user_id, amount, due_at, collect_at, status)
       VALUES (?, ?, ?, ?, ?, ?, 'scheduled')`,
    ),
    paid: database.prepare(
      "UPDATE bnpl_installments SET status = 'paid', paid_at = ?, transaction_id = ? WHERE payment_id = ? AND number = ?",
    ),
    failed: database.prepare(
      "UPDATE bnpl_installments SET status = 'failed', failure_reason = ? WHERE payment_id = ? AND number = ?",
    ),
    refunded: database.prepare(
      "UPDATE bnpl_installments SET status = 'refunded', refund_transaction_id = ? WHERE payment_id = ? AND number = ?",
    ),
    cancelScheduled: database.prepare(
      "UPDATE bnpl_installments SET status = 'cancelled' WHERE payment_id = ? AND status = 'scheduled'",
    ),
    due: database.prepare<Pick<InstallmentRow, 'payment_id' | 'number'>>(
      `SELECT i.payment_id, i.number FROM bnpl_installments i JOIN bnpl_payments p ON p.id = i.payment_id
       WHERE i.status = 'scheduled' AND i.collect_at <= ? AND p.partner_id = ? AND p.status IN ('pending', 'active')
       ORDER BY i.collect_at, i.number LIMIT ?`,
    ),
  }
}

/** When a payment reached its final state. */
type Timestamps = Pick<BnplPayment, 'completedAt' | 'cancelledAt' | 'failedAt'>

/**
 * Buy now, pay later over the ledger (docs/bnpl.md): a deterministic pre-qualification rule, payments
 * of four instalments collected from the user's wallet on the sandbox clock, and cancellation with
 * refunds. Every method runs synchronously in one database transaction.
 */
export class BnplService {
  private readonly q: ReturnType<typeof statements>
  readonly #list: PagedList<PaymentRow, 'userId' | 'status'>

  constructor(
    private readonly deps: Pick<
      SandboxContext,
      'database' | 'clock' | 'money' | 'tenants' | 'events' | 'cursors' | 'settings'
    >,
  ) {
    this.q = statements(deps.database)
    this.#list = new PagedList(deps.database, deps.cursors, {
      name: 'bnpl',
      table: 'bnpl_payments',
      order: 'newest first',
      filters: {userId: 'user_id = ?', status: 'status = ?'},
    })
  }

  /** BNPL lends in fiat only. */
  private currency(code: string): Currency {
    if (!isSupportedCurrency(code) || !(FIAT_CURRENCIES as readonly string[]).includes(code)) {
      throw new ApiError(
        'INVALID_CURRENCY',
        `BNPL is not available in ${code}: it lends in fiat currencies`,
        {
          field: 'currency',
          value: code,
          supported: [...FIAT_CURRENCIES],
        },
      )
    }
    return code
  }

  /**
   * The rule, the same for pre-qualification and for creating a payment: declined when the user's
   * email carries +decline, when the amount is below the minimum, or when it exceeds what is left of
   * the limit after the user's pending and active payments.
   */
  private assess(
    userId: string,
    email: string,
    currency: Currency,
    amount: bigint | undefined,
  ): Omit<Prequalification, 'userId' | 'currency' | 'amount'> {
    let owedCents = 0n
    for (const row of this.q.openOf.all(userId)) {
      const paid = this.installmentRows(row.id)
        .filter((i) => i.status === 'paid')
        .reduce((sum, i) => sum + BigInt(i.amount), 0n)
      owedCents += minorToUsdCents(BigInt(row.amount) - paid, row.currency, 'ceil')
    }
    const limit = usdCentsToMinor(BNPL_LIMIT_USD_CENTS, currency, 'floor')
    const leftCents = BNPL_LIMIT_USD_CENTS > owedCents ? BNPL_LIMIT_USD_CENTS - owedCents : 0n
    const available = usdCentsToMinor(leftCents, currency, 'floor')
    const minimum = usdCentsToMinor(BNPL_MINIMUM_USD_CENTS, currency, 'ceil')
    const reasons: Prequalification['reasons'] = []
    if ((email.split('@')[0] ?? '').toLowerCase().includes(DECLINE_TAG)) reasons.push('sandbox_decline')
    if (amount !== undefined && amount < minimum) reasons.push('amount_too_small')
    if (amount !== undefined && amount > available) reasons.push('over_limit')
    return {
      decision: reasons.length === 0 ? 'approved' : 'declined',
      limit: jsonAmount(limit),
      available: jsonAmount(available),
      minimum: jsonAmount(minimum),
      reasons,
    }
  }

  prequalify(
    partnerId: string,
    body: {userId: string; amount?: bigint | undefined; currency: string},
  ): Prequalification {
    const user = this.deps.tenants.requireUser(partnerId, body.userId, {field: 'userId'})
    const currency = this.currency(body.currency)
    const assessment = this.assess(body.userId, user.email, currency, body.amount)
    return {
      userId: body.userId,
      ...assessment,
      currency,
      amount: body.amount === undefined ? null : jsonAmount(body.amount),
    }
  }

  /**
   * A new payment, `pending` until its first instalment is collected: four instalments, the first
   * due at once and taking the remainder of the division, the others every two weeks.
   */
  create(
    partnerId: string,
    body: {
      userId: string
      amount: bigint
      currency: string
      merchantName: string
      description?: string | undefined
    },
  ): BnplPayment {
    const user = this.deps.tenants.requireUser(partnerId, body.userId, {field: 'userId'})
    const currency = this.currency(body.currency)
    const {database, money, clock, events} = this.deps
    return database.transaction(() => {
      // The decision first: a declined user is told so, whatever wallet they have.
      const assessment = this.assess(body.userId, user.email, currency, body.amount)
      if (assessment.decision === 'declined') {
        throw new ApiError(
          'BNPL_DECLINED',
          `BNPL declined for user ${body.userId}: ${assessment.reasons.join(', ')}`,
          {
            reasons: assessment.reasons,
            limit: assessment.limit,
            available: assessment.available,
            minimum: assessment.minimum,
            currency,
          },
        )
      }
      const wallet = money.ledger.walletOfUser(body.userId, currency, partnerId)
      if (wallet === undefined) {
        throw new ApiError(
          'NOT_FOUND',
          `User ${body.userId} has no ${currency} wallet to pay the instalments from`,
          {resource: 'wallet', userId: body.userId, currency},
        )
      }
      requireActive(wallet)
      const now = clock.now(partnerId)
      const nowIso = now.toISOString()
      const id = `bnpl_${randomHex(12)}`
      this.q.insertPayment.run(
        id,
        partnerId,
        body.userId,
        wallet.id,
        body.merchantName,
        body.description ?? null,
        body.amount.toString(),
        currency,
        nowIso,
        nowIso,
      )
      this.schedule(id, body.userId, body.amount, now)
      const payment = this.load(id, partnerId)
      events.record('bnplsvc.payment.created', partnerId, {...payment}, now)
      return payment
    })
  }

  /** Four instalments, the first due at once and taking the remainder of the division, the others every two weeks. */
  private schedule(paymentId: string, userId: string, total: bigint, now: Date): void {
    const n = BigInt(BNPL_INSTALLMENTS)
    const share = total / n
    // The first instalment, due at purchase, is collected once the processor has taken it (the
    // payment is pending until then); each later one when it falls due, so that advancing the
    // clock by two weeks collects the second.
    const firstDelayMs = this.deps.settings.settleAfterSeconds * 1000
    for (let i = 0; i < BNPL_INSTALLMENTS; i++) {
      const dueMs = now.getTime() + i * BNPL_INTERVAL_DAYS * DAY_MS
      const amount = i === 0 ? share + (total % n) : share
      this.q.insertInstallment.run(
        paymentId,
        i + 1,
        userId,
        amount.toString(),
        new Date(dueMs).toISOString(),
        dueMs + (i === 0 ? firstDelayMs : 0),
      )
    }
  }

  get(partnerId: string, id: string): BnplPayment {
    return this.load(id, partnerId)
  }

  list(partnerId: string, query: ListBnplPaymentsQuery): BnplPaymentList {
    const {rows, hasMore, nextCursor} = this.#list.page(partnerId, query, query)
    return {payments: rows.map((row) => this.toPayment(row)), hasMore, nextCursor}
  }

  /**
   * Cancel a pending or active payment: what was collected is refunded to the wallet (one refund
   * per paid instalment), the rest is never collected.
   */
  cancel(partnerId: string, id: string, reason: string | undefined): BnplPayment {
    const {database, money, clock} = this.deps
    return database.transaction(() => {
      const row = this.row(id, partnerId)
      if (!BNPL_CANCELLABLE.includes(row.status)) {
        throw new ApiError(
          'INVALID_STATE_TRANSITION',
          `BNPL payment ${id} is ${row.status}: only ${BNPL_CANCELLABLE.join(' or ')} payments can be cancelled`,
          {
            resource: 'bnpl_payment',
            id,
            status: row.status,
            action: 'cancel',
            allowed: [...BNPL_CANCELLABLE],
          },
        )
      }
      for (const installment of this.installmentRows(id)) {
        if (installment.status !== 'paid' || installment.transaction_id === null) continue
        const paid = money.transaction(installment.transaction_id, partnerId)
        const [back] = refund(money, paid, {reason: reason ?? `BNPL payment ${id} cancelled`})
        this.q.refunded.run(back!.id, id, installment.number)
      }
      this.q.cancelScheduled.run(id)
      const nowIso = clock.now(partnerId).toISOString()
      this.setStatus(row, 'cancelled', null, {completedAt: null, cancelledAt: nowIso, failedAt: null}, nowIso)
      // The spec names no cancellation event; the refunds record their transaction.completed.
      return this.load(id, partnerId)
    })
  }

  /**
   * Collect every instalment of the partner due by `nowMs` on its clock (run on every settlement
   * tick and clock advance), each at its own time; returns how many were collected or failed.
   */
  collectDue(partnerId: string, nowMs: number): number {
    let done = 0
    for (;;) {
      const due = this.q.due.all(nowMs, partnerId, COLLECT_BATCH)
      for (const {payment_id, number} of due) {
        if (this.deps.database.transaction(() => this.collect(payment_id, number))) done++
      }
      if (due.length < COLLECT_BATCH) return done
    }
  }

  /**
   * Collect one instalment from the wallet as a wallet-product payment to the merchant. The first
   * makes the payment active and the last completes it; one that cannot be collected fails the
   * payment, and what is left is never collected (the sandbox does not retry).
   */
  private collect(paymentId: string, number: number): boolean {
    const row = this.q.paymentById.get(paymentId)
    const installment = this.installmentRows(paymentId).find((i) => i.number === number)
    if (row === undefined || installment === undefined) return false
    if (installment.status !== 'scheduled' || (row.status !== 'pending' && row.status !== 'active'))
      return false
    const at = new Date(installment.collect_at)
    const atIso = at.toISOString()
    const {database, money, events} = this.deps
    try {
      const wallet = money.ledger.wallet(row.wallet_id, row.partner_id)
      if (wallet === undefined) throw new ApiError('NOT_FOUND', `No wallet ${row.wallet_id}`)
      const txn = database.transaction(() =>
        money.pay(wallet, BigInt(installment.amount), at, {
          description: `${row.merchant_name}: instalment ${number} of ${BNPL_INSTALLMENTS} (${row.id})`,
          owner: installmentOwner(row.id, number),
        }),
      )
      this.q.paid.run(atIso, txn.id, paymentId, number)
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      this.q.failed.run(`${err.code}: ${err.message}`, paymentId, number)
      this.q.cancelScheduled.run(paymentId)
      this.setStatus(
        row,
        'failed',
        `instalment ${number} of ${BNPL_INSTALLMENTS} could not be collected: ${err.code}`,
        {completedAt: null, cancelledAt: null, failedAt: atIso},
        atIso,
      )
      events.record('bnplsvc.payment.failed', row.partner_id, {...this.load(paymentId, row.partner_id)}, at)
      return true
    }
    if (number === BNPL_INSTALLMENTS) {
      this.setStatus(row, 'completed', null, {completedAt: atIso, cancelledAt: null, failedAt: null}, atIso)
      events.record(
        'bnplsvc.payment.completed',
        row.partner_id,
        {...this.load(paymentId, row.partner_id)},
        at,
      )
    } else {
      this.setStatus(row, 'active', null, {completedAt: null, cancelledAt: null, failedAt: null}, atIso)
    }
    return true
  }

  private setStatus(
    row: PaymentRow,
    status: BnplStatus,
    failureReason: string | null,
    at: Timestamps,
    nowIso: string,
  ): void {
    this.q.setStatus.run(status, failureReason, nowIso, at.completedAt, at.cancelledAt, at.failedAt, row.id)
  }

  private row(id: string, partnerId: string): PaymentRow {
    const row = this.q.payment.get(id, partnerId)
    if (row === undefined) {
      throw new ApiError('NOT_FOUND', `No BNPL payment ${id}`, {resource: 'bnpl_payment', id})
    }
    return row
  }

  private load(id: string, partnerId: string): BnplPayment {
    return this.toPayment(this.row(id, partnerId))
  }

  private installmentRows(paymentId: string): InstallmentRow[] {
    return this.q.installments.all(paymentId)
  }

  private toPayment(row: PaymentRow): BnplPayment {
    const installments = this.installmentRows(row.id)
    const amount = BigInt(row.amount)
    const paid = installments.filter((i) => i.status === 'paid')
    const paidAmount = paid.reduce((sum, i) => sum + BigInt(i.amount), 0n)
    const open = row.status === 'pending' || row.status === 'active'
    return {
      id: row.id,
      userId: row.user_id,
      walletId: row.wallet_id,
      merchantName: row.merchant_name,
      description: row.description,
      amount: jsonAmount(amount),
      currency: row.currency,
      status: row.status,
      installments: BNPL_INSTALLMENTS,
      installmentAmount: jsonAmount(amount / BigInt(BNPL_INSTALLMENTS)),
      paidInstallments: paid.length,
      paidAmount: jsonAmount(paidAmount),
      outstandingAmount: jsonAmount(open ? amount - paidAmount : 0n),
      schedule: installments.map((i) => ({
        number: i.number,
        amount: jsonAmount(BigInt(i.amount)),
        dueAt: i.due_at,
        status: i.status,
        paidAt: i.paid_at,
        transactionId: i.transaction_id,
        refundTransactionId: i.refund_transaction_id,
        failureReason: i.failure_reason,
      })),
      failureReason: row.failure_reason,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      completedAt: row.completed_at,
      cancelledAt: row.cancelled_at,
      failedAt: row.failed_at,
    }
  }
}
