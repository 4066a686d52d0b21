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
import {minorFrom} from '../../contract/money/amounts.js'
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

/**
 * A row of a card of a loosely read record: its label, the fields it shows (their names as the
 * record spells them), and how it shows their values, given in that order.
 */
type CardLine<T> = readonly [
  label: string,
  fields: readonly (keyof T & string)[],
  show: (...values: unknown[]) => string | undefined,
]

/**
 * The card of a loosely read record: a row for each line, then the fields no line shows
 * (extraRows), so each field is named once, by the line that shows it.
 */
function looseCard<T>(
  record: Record<string, unknown>,
  lines: readonly CardLine<T>[],
  currency?: unknown,
): Row[] {
  return [
    ...lines.map(([label, fields, show]): Row => [label, show(...fields.map((f) => record[f]))]),
    ...extraRows(
      record,
      lines.flatMap(([, fields]) => fields),
      currency,
    ),
  ]
}

const boldMoney = (amount: unknown, currency: unknown) => paint('bold', money(amount, currency))

/** A user's name from its parts, either of which may be missing. */
const userName = (first: unknown, last: unknown) => [text(first), text(last)].filter(Boolean).join(' ')

/** A user's fields in either spelling the document mentions (snake_case, or the SDK's camelCase). */
const USER_CARD: readonly CardLine<Loose<User>>[] = [
  ['id', ['id'], known],
  ['email', ['email'], known],
  [
    'name',
    ['first_name', 'firstName', 'last_name', 'lastName'],
    (first, firstCamel, last, lastCamel) => userName(first ?? firstCamel, last ?? lastCamel) || ABSENT,
  ],
  ['partner', ['partner_id', 'partnerId'], (snake, camel) => known(snake ?? camel)],
  ['external id', ['external_id', 'externalId'], (snake, camel) => text(snake ?? camel)],
  ['created', ['created_at', 'createdAt'], (snake, camel) => known(snake ?? camel)],
]

export function userCard(u: Loose<User>): Row[] {
  return looseCard(u, USER_CARD)
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

const BALANCE_CARD: readonly CardLine<Balance>[] = [
  ['available', ['available', 'currency'], money],
  ['pending', ['pending', 'currency'], money],
  ['reserved', ['reserved', 'currency'], money],
  ['total', ['total', 'currency'], boldMoney],
]

export function balanceCard(b: Loose<Balance>): Row[] {
  return looseCard(b, BALANCE_CARD, b.currency)
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
    get: (u) => userName(u.first_name ?? u.firstName, u.last_name ?? u.lastName),
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

/** A card number shown in full only when it was just issued; masked everywhere else. */
function cardNumber(full: unknown, last4: unknown): string {
  const number = str(full)
  if (number) return paint('bold', number.replace(/(\d{4})(?=\d)/g, '$1 '))
  return last4 === undefined ? ABSENT : `•••• •••• •••• ${known(last4)}`
}

const VIRTUAL_CARD_CARD: readonly CardLine<VirtualCard>[] = [
  ['id', ['id'], known],
  ['user', ['userId'], known],
  ['wallet', ['walletId'], text],
  ['brand', ['brand'], known],
  ['number', ['number', 'last4'], cardNumber],
  ['cvc', ['cvc'], text],
  [
    'expires',
    ['expMonth', 'expYear'],
    (month, year) => (month === undefined ? undefined : `${known(month).padStart(2, '0')}/${known(year)}`),
  ],
  ['status', ['status'], status],
  ['label', ['label'], text],
  ['created', ['createdAt'], known],
]

export function virtualCardCard(c: Loose<VirtualCard>): Row[] {
  return looseCard(c, VIRTUAL_CARD_CARD)
}

const WALLET_PAYMENT_CARD: readonly CardLine<WalletPayment>[] = [
  ['id', ['id'], known],
  ['status', ['status'], status],
  ['amount', ['amount', 'currency'], boldMoney],
  ['user', ['userId'], known],
  ['wallet', ['walletId'], text],
  ['transaction', ['transactionId'], text],
  ['merchant', ['merchantName'], text],
  ['created', ['createdAt'], known],
]

export function walletPaymentCard(p: Loose<WalletPayment>): Row[] {
  return looseCard(p, WALLET_PAYMENT_CARD, p.currency)
}

const ELIGIBILITY_CARD: readonly CardLine<Eligibility>[] = [
  [
    'eligible',
    ['eligible'],
    (eligible) =>
      eligible === true ? paint('green', 'yes') : eligible === false ? paint('red', 'no') : ABSENT,
  ],
  ['amount', ['amount', 'currency'], money],
  ['available', ['available', 'currency'], money],
  // A wallet that came as null is none; one that did not come is not known.
  ['wallet', ['walletId'], (wallet) => (wallet === undefined ? ABSENT : (text(wallet) ?? 'none'))],
  [
    'reasons',
    ['reasons'],
    (reasons) =>
      (Array.isArray(reasons) ? reasons.map((r) => known(r)).join(', ') : text(reasons)) || undefined,
  ],
]

export function eligibilityCard(e: Loose<Eligibility>): Row[] {
  return looseCard(e, ELIGIBILITY_CARD, e.currency)
}

/** A user, and their wallet where one was named. */
const party = (user: unknown, wallet: unknown) =>
  wallet === undefined ? known(user) : `${known(user)} (${known(wallet)})`

const P2P_CARD: readonly CardLine<P2PTransfer>[] = [
  ['id', ['id'], known],
  ['status', ['status'], status],
  ['amount', ['amount', 'currency'], boldMoney],
  ['from', ['fromUserId', 'fromWalletId'], party],
  ['to', ['toUserId', 'toWalletId'], party],
  ['note', ['note'], text],
  [
    'transactions',
    ['transactionIds'],
    (ids) => (Array.isArray(ids) ? ids.map((t) => known(t)).join(', ') : undefined),
  ],
  ['created', ['createdAt'], known],
]

export function p2pCard(p: Loose<P2PTransfer>): Row[] {
  return looseCard(p, P2P_CARD, p.currency)
}
