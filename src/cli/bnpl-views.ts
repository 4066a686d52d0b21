import type {BnplInstallment, BnplPayment, Prequalification} from '../contract/index.js'
import {formatMoney} from '../core/index.js'
import type {Column} from './output.js'
import {paint, STATUS_STYLES} from './terminal.js'

/** How buy-now-pay-later records look to a person. */

const STYLES: Record<string, Parameters<typeof paint>[0]> = {
  ...STATUS_STYLES,
  scheduled: 'yellow',
  paid: 'green',
  approved: 'green',
  declined: 'red',
}
export const bnplStatus = (s: string) => paint(STYLES[s] ?? 'white', s)

export function prequalificationCard(p: Prequalification): [string, string | undefined][] {
  const m = (n: number) => formatMoney(n, p.currency)
  return [
    ['decision', paint('bold', bnplStatus(p.decision))],
    ['reasons', p.reasons.length > 0 ? p.reasons.join(', ').replaceAll('_', ' ') : undefined],
    ['amount', p.amount === null ? undefined : m(p.amount)],
    ['available', m(p.available)],
    ['limit', m(p.limit)],
    ['minimum purchase', m(p.minimum)],
    ['user', p.userId],
  ]
}

export function bnplCard(p: BnplPayment): [string, string | undefined][] {
  const m = (n: number) => formatMoney(n, p.currency)
  const next = p.schedule.find((i) => i.status === 'scheduled')
  return [
    ['id', p.id],
    ['status', bnplStatus(p.status)],
    ['amount', paint('bold', m(p.amount))],
    ['merchant', p.merchantName],
    ['description', p.description ?? undefined],
    ['paid', `${p.paidInstallments} of ${p.installments} (${m(p.paidAmount)})`],
    ['outstanding', m(p.outstandingAmount)],
    ['next instalment', next ? `${m(next.amount)} due ${next.dueAt}` : undefined],
    ['user', p.userId],
    ['wallet', p.walletId],
    ['failure reason', p.failureReason ? paint('red', p.failureReason) : undefined],
    ['created', p.createdAt],
    ['completed', p.completedAt ?? undefined],
    ['cancelled', p.cancelledAt ?? undefined],
    ['failed', p.failedAt ?? undefined],
  ]
}

export const installmentColumns = (currency: string): Column<BnplInstallment>[] => [
  {header: '#', get: (i) => String(i.number)},
  {header: 'AMOUNT', get: (i) => formatMoney(i.amount, currency)},
  {header: 'DUE', get: (i) => i.dueAt},
  {header: 'STATUS', get: (i) => bnplStatus(i.status)},
  {header: 'PAID', get: (i) => i.paidAt ?? ''},
  {header: 'TRANSACTION', get: (i) => i.refundTransactionId ?? i.transactionId ?? ''},
]

export const bnplColumns: Column<BnplPayment>[] = [
  {header: 'ID', get: (p) => p.id},
  {header: 'STATUS', get: (p) => bnplStatus(p.status)},
  {header: 'AMOUNT', get: (p) => formatMoney(p.amount, p.currency)},
  {header: 'PAID', get: (p) => `${p.paidInstallments}/${p.installments}`},
  {header: 'OUTSTANDING', get: (p) => formatMoney(p.outstandingAmount, p.currency)},
  {header: 'MERCHANT', get: (p) => p.merchantName},
  {header: 'USER', get: (p) => p.userId},
  {header: 'CREATED', get: (p) => p.createdAt},
]
