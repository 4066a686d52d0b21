import type {
  Balance,
  BankAccount,
  Eligibility,
  P2PTransfer,
  PaymentMethod,
  Transaction,
  User,
  UserBalance,
  VirtualCard,
  Wallet,
  WalletPayment,
} from '../contract/index.js'
import {formatMoney} from '../core/index.js'
import type {Column} from './output.js'
import {paint, STATUS_STYLES} from './terminal.js'

/** How each resource looks to a person: one card layout and one table layout per resource. */

export const status = (s: string) => paint(STATUS_STYLES[s] ?? 'white', s)

export function userCard(u: User): [string, string | undefined][] {
  return [
    ['id', u.id],
    ['email', u.email],
    ['name', `${u.first_name} ${u.last_name}`],
    ['partner', u.partner_id],
    ['external id', u.external_id ?? undefined],
    ['created', u.created_at],
  ]
}

export function walletCard(w: Wallet): [string, string | undefined][] {
  const m = (n: number) => formatMoney(n, w.currency)
  return [
    ['id', w.id],
    ['user', w.userId],
    ['currency', w.currency],
    ['status', status(w.status)],
    ['label', w.label],
    ['available', m(w.balance.available)],
    ['pending', m(w.balance.pending)],
    ['reserved', m(w.balance.reserved)],
    ['total', paint('bold', m(w.balance.total))],
    ['limit / transaction', m(w.limits.transaction)],
    ['limit / day', m(w.limits.daily)],
    ['limit / month', m(w.limits.monthly)],
    ['created', w.createdAt],
    ['updated', w.updatedAt],
  ]
}

export const walletColumns: Column<Wallet>[] = [
  {header: 'ID', get: (w) => w.id},
  {header: 'USER', get: (w) => w.userId},
  {header: 'CURRENCY', get: (w) => w.currency},
  {header: 'STATUS', get: (w) => status(w.status)},
  {header: 'AVAILABLE', get: (w) => formatMoney(w.balance.available, w.currency)},
  {header: 'TOTAL', get: (w) => formatMoney(w.balance.total, w.currency)},
  {header: 'LABEL', get: (w) => w.label ?? ''},
]

export function balanceCard(b: Balance): [string, string | undefined][] {
  const m = (n: number) => formatMoney(n, b.currency)
  return [
    ['available', m(b.available)],
    ['pending', m(b.pending)],
    ['reserved', m(b.reserved)],
    ['total', paint('bold', m(b.total))],
  ]
}

export function transactionCard(t: Transaction): [string, string | undefined][] {
  const m = (n: number) => formatMoney(n, t.currency)
  return [
    ['id', t.id],
    ['type', t.type],
    ['status', status(t.status)],
    ['amount', paint('bold', m(t.amount))],
    // A failed payment moved no money and charged nothing: no fee line to puzzle over.
    ['fee', t.status === 'failed' ? undefined : m(t.fee)],
    ['net', m(t.netAmount)],
    ['from wallet', t.sourceWalletId],
    ['to wallet', t.destinationWalletId],
    ['payment method', t.paymentMethodId],
    ['description', t.description],
    [
      'metadata',
      t.metadata && Object.keys(t.metadata).length > 0
        ? Object.entries(t.metadata)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')
        : undefined,
    ],
    ['created', t.createdAt],
    ['completed', t.completedAt ?? undefined],
    ['estimated completion', t.completedAt ? undefined : t.estimatedCompletion],
    ['failure reason', t.failureReason && paint('red', t.failureReason)],
  ]
}

export const transactionColumns: Column<Transaction>[] = [
  {header: 'ID', get: (t) => t.id},
  {header: 'TYPE', get: (t) => t.type},
  {header: 'STATUS', get: (t) => status(t.status)},
  {header: 'AMOUNT', get: (t) => formatMoney(t.amount, t.currency)},
  {header: 'NET', get: (t) => formatMoney(t.netAmount, t.currency)},
  {header: 'FROM', get: (t) => t.sourceWalletId ?? ''},
  {header: 'TO', get: (t) => t.destinationWalletId ?? ''},
  {header: 'CREATED', get: (t) => t.createdAt},
]

export function paymentMethodCard(p: PaymentMethod): [string, string | undefined][] {
  return [
    ['id', p.id],
    ['type', p.type],
    ['brand', p.brand],
    ['bank', p.bankName],
    ['number', p.last4 && `•••• ${p.last4}`],
    ['status', status(p.status)],
    ['user', p.userId ?? 'shared test method'],
    ['created', p.createdAt],
  ]
}

export const paymentMethodColumns: Column<PaymentMethod>[] = [
  {header: 'ID', get: (p) => p.id},
  {header: 'TYPE', get: (p) => p.type},
  {header: 'BRAND / BANK', get: (p) => p.brand ?? p.bankName ?? ''},
  {header: 'NUMBER', get: (p) => (p.last4 ? `•••• ${p.last4}` : '')},
  {header: 'STATUS', get: (p) => status(p.status)},
]

export function bankAccountCard(a: BankAccount): [string, string | undefined][] {
  return [
    ['id', a.id],
    ['user', a.userId],
    ['bank', a.bankName],
    ['account', `•••• ${a.last4}`],
    ['status', status(a.status)],
    ['payment method', paint('bold', a.paymentMethodId)],
    ['created', a.createdAt],
  ]
}

export const bankAccountColumns: Column<BankAccount>[] = [
  {header: 'ID', get: (a) => a.id},
  {header: 'BANK', get: (a) => a.bankName},
  {header: 'ACCOUNT', get: (a) => `•••• ${a.last4}`},
  {header: 'PAYMENT METHOD', get: (a) => a.paymentMethodId},
  {header: 'STATUS', get: (a) => status(a.status)},
]

export const userBalanceColumns: Column<UserBalance['balances'][number]>[] = [
  {header: 'WALLET', get: (b) => b.walletId},
  {header: 'CURRENCY', get: (b) => b.currency},
  {header: 'AVAILABLE', get: (b) => formatMoney(b.available, b.currency)},
  {header: 'PENDING', get: (b) => formatMoney(b.pending, b.currency)},
  {header: 'RESERVED', get: (b) => formatMoney(b.reserved, b.currency)},
  {header: 'TOTAL', get: (b) => formatMoney(b.total, b.currency)},
]

/** A card number shown in full only when it was just issued; masked everywhere else. */
export function virtualCardCard(c: VirtualCard): [string, string | undefined][] {
  return [
    ['id', c.id],
    ['user', c.userId],
    ['wallet', c.walletId],
    ['brand', c.brand],
    [
      'number',
      c.number ? paint('bold', c.number.replace(/(\d{4})(?=\d)/g, '$1 ')) : `•••• •••• •••• ${c.last4}`,
    ],
    ['cvc', c.cvc],
    ['expires', `${String(c.expMonth).padStart(2, '0')}/${c.expYear}`],
    ['status', status(c.status)],
    ['label', c.label],
    ['created', c.createdAt],
  ]
}

export function walletPaymentCard(p: WalletPayment): [string, string | undefined][] {
  return [
    ['id', p.id],
    ['status', status(p.status)],
    ['amount', paint('bold', formatMoney(p.amount, p.currency))],
    ['user', p.userId],
    ['wallet', p.walletId],
    ['transaction', p.transactionId],
    ['merchant', p.merchantName],
    ['created', p.createdAt],
  ]
}

export function eligibilityCard(e: Eligibility): [string, string | undefined][] {
  return [
    ['eligible', e.eligible ? paint('green', 'yes') : paint('red', 'no')],
    ['amount', formatMoney(e.amount, e.currency)],
    ['available', formatMoney(e.available, e.currency)],
    ['wallet', e.walletId ?? 'none'],
    ['reasons', e.reasons.length > 0 ? e.reasons.join(', ') : undefined],
  ]
}

export function p2pCard(p: P2PTransfer): [string, string | undefined][] {
  return [
    ['id', p.id],
    ['status', status(p.status)],
    ['amount', paint('bold', formatMoney(p.amount, p.currency))],
    ['from', `${p.fromUserId} (${p.fromWalletId})`],
    ['to', `${p.toUserId} (${p.toWalletId})`],
    ['note', p.note],
    ['transactions', p.transactionIds.join(', ')],
    ['created', p.createdAt],
  ]
}
