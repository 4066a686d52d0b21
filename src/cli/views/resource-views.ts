import type {
  Balance,
  BankAccount,
  Eligibility,
  Loose,
  P2PTransfer,
  PaymentMethod,
  TransactionView,
  User,
  UserBalance,
  VirtualCard,
  WalletPayment,
  WalletView,
} from '../../contract/index.js'
import {minorFrom} from '../../contract/money.js'
import {ABSENT, extraRows, isRecord, known, money, type Row, str, text} from '../rendering/field-readers.js'
import type {Column} from '../rendering/output.js'
import {paint, STATUS_STYLES} from '../rendering/terminal.js'

/**
 * How each resource looks to a person: one card layout and one table layout per resource. Records
 * the interface document shows in full (wallets, transactions) are read as typed; the others may
 * come from a service that sends other fields, so they are read with the readers of field-readers.ts:
 * a known field that is missing shows as —, and fields payctl does not know are listed after.
 */

export const status = (s: unknown) => {
  const value = text(s)
  return value === undefined ? ABSENT : paint(STATUS_STYLES[value] ?? 'white', value)
}

/** The user's fields in either spelling the document mentions (snake_case, or the SDK's camelCase). */
const USER_FIELDS = [
  'id',
  'email',
  'first_name',
  'firstName',
  'last_name',
  'lastName',
  'partner_id',
  'partnerId',
  'external_id',
  'externalId',
  'created_at',
  'createdAt',
]

export function userCard(u: Loose<User>): Row[] {
  const name = [text(u.first_name ?? u.firstName), text(u.last_name ?? u.lastName)].filter(Boolean)
  return [
    ['id', known(u.id)],
    ['email', known(u.email)],
    ['name', name.length > 0 ? name.join(' ') : ABSENT],
    ['partner', known(u.partner_id ?? u.partnerId)],
    ['external id', text(u.external_id ?? u.externalId)],
    ['created', known(u.created_at ?? u.createdAt)],
    ...extraRows(u, USER_FIELDS),
  ]
}

export function walletCard(w: WalletView): Row[] {
  const m = (n: unknown) => money(n, w.currency)
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

export const walletColumns: Column<WalletView>[] = [
  {header: 'ID', get: (w) => w.id},
  {header: 'USER', get: (w) => w.userId},
  {header: 'CURRENCY', get: (w) => w.currency},
  {header: 'STATUS', get: (w) => status(w.status)},
  {header: 'AVAILABLE', get: (w) => money(w.balance.available, w.currency)},
  {header: 'TOTAL', get: (w) => money(w.balance.total, w.currency)},
  {header: 'LABEL', get: (w) => w.label ?? ''},
]

const BALANCE_FIELDS = ['available', 'pending', 'reserved', 'total', 'currency']
export function balanceCard(b: Loose<Balance>): Row[] {
  const m = (n: unknown) => money(n, b.currency)
  return [
    ['available', m(b.available)],
    ['pending', m(b.pending)],
    ['reserved', m(b.reserved)],
    ['total', paint('bold', m(b.total))],
    ...extraRows(b, BALANCE_FIELDS, b.currency),
  ]
}

export function transactionCard(t: TransactionView): Row[] {
  const m = (n: unknown) => money(n, t.currency)
  const failed = t.status === 'failed'
  // The sandbox says how much of a payment was refunded; the interface does not show it.
  const refunded = minorFrom(t.refundedAmount)
  return [
    ['id', t.id],
    ['type', t.type],
    ['status', status(t.status)],
    ['amount', paint('bold', m(t.amount))],
    // A failed payment moved no money and charged nothing: no fee or net line to puzzle over.
    ['fee', failed ? undefined : m(t.fee)],
    ['net', failed ? undefined : m(t.netAmount)],
    ['refunded', refunded === undefined || refunded === 0n ? undefined : m(refunded)],
    ['from wallet', t.sourceWalletId],
    ['to wallet', t.destinationWalletId],
    ['payment method', t.paymentMethodId],
    ['description', t.description],
    [
      'metadata',
      t.metadata && Object.keys(t.metadata).length > 0
        ? Object.entries(t.metadata)
            .map(([k, v]) => `${k}=${text(v) ?? ''}`)
            .join(' ')
        : undefined,
    ],
    ['created', t.createdAt],
    ['completed', t.completedAt ?? undefined],
    ['estimated completion', t.completedAt ? undefined : t.estimatedCompletion],
    ['failure reason', t.failureReason && paint('red', t.failureReason)],
  ]
}

/** When first, then what: in a narrow terminal the columns from the right go under their row. */
export const transactionColumns: Column<TransactionView>[] = [
  {header: 'ID', get: (t) => t.id},
  {header: 'CREATED', get: (t) => t.createdAt},
  {header: 'TYPE', get: (t) => t.type},
  {header: 'STATUS', get: (t) => status(t.status)},
  {header: 'AMOUNT', get: (t) => money(t.amount, t.currency)},
  // Nothing moved for a failed transaction, whatever its record's net says.
  {header: 'NET', get: (t) => (t.status === 'failed' ? '' : money(t.netAmount, t.currency))},
  {header: 'FROM', get: (t) => t.sourceWalletId ?? ''},
  {header: 'TO', get: (t) => t.destinationWalletId ?? ''},
]

export const userColumns: Column<Loose<User>>[] = [
  {header: 'ID', get: (u) => known(u.id)},
  {header: 'EMAIL', get: (u) => known(u.email)},
  {
    header: 'NAME',
    get: (u) =>
      [text(u.first_name ?? u.firstName), text(u.last_name ?? u.lastName)].filter(Boolean).join(' '),
  },
  {header: 'EXTERNAL ID', get: (u) => text(u.external_id ?? u.externalId) ?? ''},
  {header: 'CREATED', get: (u) => known(u.created_at ?? u.createdAt)},
]

export function paymentMethodCard(p: PaymentMethod): Row[] {
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

export function bankAccountCard(a: BankAccount): Row[] {
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

/** The per-currency balances of a user (wallet product), whatever shape each entry came in. */
export function userBalances(b: Loose<UserBalance>): Record<string, unknown>[] {
  return Array.isArray(b.balances) ? b.balances.filter(isRecord) : []
}

export const userBalanceColumns: Column<Record<string, unknown>>[] = [
  {header: 'WALLET', get: (b) => known(b.walletId)},
  {header: 'CURRENCY', get: (b) => known(b.currency)},
  {header: 'AVAILABLE', get: (b) => money(b.available, b.currency)},
  {header: 'PENDING', get: (b) => money(b.pending, b.currency)},
  {header: 'RESERVED', get: (b) => money(b.reserved, b.currency)},
  {header: 'TOTAL', get: (b) => money(b.total, b.currency)},
]

const CARD_FIELDS = ['id', 'userId', 'walletId', 'brand', 'number', 'last4', 'cvc', 'expMonth', 'expYear']
/** A card number shown in full only when it was just issued; masked everywhere else. */
export function virtualCardCard(c: Loose<VirtualCard>): Row[] {
  const number = str(c.number)
  const expiry =
    c.expMonth === undefined ? undefined : `${known(c.expMonth).padStart(2, '0')}/${known(c.expYear)}`
  return [
    ['id', known(c.id)],
    ['user', known(c.userId)],
    ['wallet', text(c.walletId)],
    ['brand', known(c.brand)],
    [
      'number',
      number
        ? paint('bold', number.replace(/(\d{4})(?=\d)/g, '$1 '))
        : c.last4 === undefined
          ? ABSENT
          : `•••• •••• •••• ${known(c.last4)}`,
    ],
    ['cvc', text(c.cvc)],
    ['expires', expiry],
    ['status', status(c.status)],
    ['label', text(c.label)],
    ['created', known(c.createdAt)],
    ...extraRows(c, [...CARD_FIELDS, 'status', 'label', 'createdAt']),
  ]
}

export function walletPaymentCard(p: Loose<WalletPayment>): Row[] {
  return [
    ['id', known(p.id)],
    ['status', status(p.status)],
    ['amount', paint('bold', money(p.amount, p.currency))],
    ['user', known(p.userId)],
    ['wallet', text(p.walletId)],
    ['transaction', text(p.transactionId)],
    ['merchant', text(p.merchantName)],
    ['created', known(p.createdAt)],
    ...extraRows(
      p,
      [
        'id',
        'status',
        'amount',
        'currency',
        'userId',
        'walletId',
        'transactionId',
        'merchantName',
        'createdAt',
      ],
      p.currency,
    ),
  ]
}

export function eligibilityCard(e: Loose<Eligibility>): Row[] {
  const reasons = Array.isArray(e.reasons) ? e.reasons.map((r) => known(r)).join(', ') : text(e.reasons)
  return [
    [
      'eligible',
      e.eligible === true ? paint('green', 'yes') : e.eligible === false ? paint('red', 'no') : ABSENT,
    ],
    ['amount', money(e.amount, e.currency)],
    ['available', money(e.available, e.currency)],
    ['wallet', 'walletId' in e ? (text(e.walletId) ?? 'none') : ABSENT],
    ['reasons', reasons || undefined],
    ...extraRows(e, ['eligible', 'amount', 'available', 'currency', 'walletId', 'reasons'], e.currency),
  ]
}

export function p2pCard(p: Loose<P2PTransfer>): Row[] {
  const party = (user: unknown, wallet: unknown) =>
    wallet === undefined ? known(user) : `${known(user)} (${known(wallet)})`
  return [
    ['id', known(p.id)],
    ['status', status(p.status)],
    ['amount', paint('bold', money(p.amount, p.currency))],
    ['from', party(p.fromUserId, p.fromWalletId)],
    ['to', party(p.toUserId, p.toWalletId)],
    ['note', text(p.note)],
    [
      'transactions',
      Array.isArray(p.transactionIds) ? p.transactionIds.map((t) => known(t)).join(', ') : undefined,
    ],
    ['created', known(p.createdAt)],
    ...extraRows(
      p,
      [
        'id',
        'status',
        'amount',
        'currency',
        'fromUserId',
        'fromWalletId',
        'toUserId',
        'toWalletId',
        'note',
        'transactionIds',
        'createdAt',
      ],
      p.currency,
    ),
  ]
}
