import type {BnplPayment, Loose, Prequalification} from '../../contract/index.js'
import {ABSENT, extraRows, isRecord, known, money, type Row, str, text} from '../rendering/field-readers.js'
import type {Column} from '../rendering/output.js'
import {paint, STATUS_STYLES} from '../rendering/terminal.js'

/** How buy-now-pay-later records look to a person. */

const STYLES: Record<string, Parameters<typeof paint>[0]> = {
  ...STATUS_STYLES,
  scheduled: 'yellow',
  paid: 'green',
  approved: 'green',
  declined: 'red',
}
export const bnplStatus = (s: unknown) => {
  const value = text(s)
  return value === undefined ? ABSENT : paint(STYLES[value] ?? 'white', value)
}

export function prequalificationCard(p: Loose<Prequalification>): Row[] {
  const m = (n: unknown) => money(n, p.currency)
  const reasons = Array.isArray(p.reasons)
    ? p.reasons.map((r) => known(r).replaceAll('_', ' ')).join(', ')
    : undefined
  return [
    ['decision', paint('bold', bnplStatus(p.decision))],
    ['reasons', reasons || undefined],
    ['amount', p.amount === null || p.amount === undefined ? undefined : m(p.amount)],
    ['available', m(p.available)],
    ['limit', m(p.limit)],
    ['minimum purchase', text(p.minimum) === undefined ? undefined : m(p.minimum)],
    ['user', known(p.userId)],
    ...extraRows(
      p,
      ['decision', 'reasons', 'amount', 'available', 'limit', 'minimum', 'userId', 'currency'],
      p.currency,
    ),
  ]
}

/** The instalments of a payment, whatever shape each came in. */
export function schedule(p: Loose<BnplPayment>): Record<string, unknown>[] {
  return Array.isArray(p.schedule) ? p.schedule.filter(isRecord) : []
}

const PAYMENT_FIELDS = [
  'id',
  'status',
  'amount',
  'currency',
  'merchantName',
  'description',
  'paidInstallments',
  'installments',
  'installmentAmount',
  'paidAmount',
  'outstandingAmount',
  'schedule',
  'userId',
  'walletId',
  'failureReason',
  'createdAt',
  'updatedAt',
  'completedAt',
  'cancelledAt',
  'failedAt',
]

export function bnplCard(p: Loose<BnplPayment>): Row[] {
  const m = (n: unknown) => money(n, p.currency)
  const next = schedule(p).find((i) => i.status === 'scheduled')
  const paid =
    p.paidInstallments === undefined
      ? undefined
      : `${known(p.paidInstallments)} of ${known(p.installments)}${p.paidAmount === undefined ? '' : ` (${m(p.paidAmount)})`}`
  return [
    ['id', known(p.id)],
    ['status', bnplStatus(p.status)],
    ['amount', paint('bold', m(p.amount))],
    ['merchant', known(p.merchantName)],
    ['description', text(p.description)],
    ['instalment', p.installmentAmount === undefined ? undefined : m(p.installmentAmount)],
    ['paid', paid],
    ['outstanding', p.outstandingAmount === undefined ? undefined : m(p.outstandingAmount)],
    ['next instalment', next ? `${m(next.amount)} due ${known(next.dueAt)}` : undefined],
    ['user', known(p.userId)],
    ['wallet', text(p.walletId)],
    ['failure reason', str(p.failureReason) ? paint('red', str(p.failureReason)!) : undefined],
    ['created', known(p.createdAt)],
    ['updated', text(p.updatedAt)],
    ['completed', text(p.completedAt)],
    ['cancelled', text(p.cancelledAt)],
    ['failed', text(p.failedAt)],
    ...extraRows(p, PAYMENT_FIELDS, p.currency),
  ]
}

export const installmentColumns = (currency: unknown): Column<Record<string, unknown>>[] => [
  {header: '#', get: (i) => known(i.number)},
  {header: 'AMOUNT', get: (i) => money(i.amount, currency)},
  {header: 'DUE', get: (i) => known(i.dueAt)},
  {header: 'STATUS', get: (i) => bnplStatus(i.status)},
  {header: 'PAID', get: (i) => text(i.paidAt) ?? ''},
  {header: 'TRANSACTION', get: (i) => text(i.refundTransactionId ?? i.transactionId) ?? ''},
]

export const bnplColumns: Column<Loose<BnplPayment>>[] = [
  {header: 'ID', get: (p) => known(p.id)},
  {header: 'STATUS', get: (p) => bnplStatus(p.status)},
  {header: 'AMOUNT', get: (p) => money(p.amount, p.currency)},
  {
    header: 'PAID',
    get: (p) =>
      p.paidInstallments === undefined ? ABSENT : `${known(p.paidInstallments)}/${known(p.installments)}`,
  },
  {header: 'OUTSTANDING', get: (p) => money(p.outstandingAmount, p.currency)},
  {header: 'MERCHANT', get: (p) => known(p.merchantName)},
  {header: 'USER', get: (p) => known(p.userId)},
  {header: 'CREATED', get: (p) => known(p.createdAt)},
]
