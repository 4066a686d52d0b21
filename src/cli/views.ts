import type {User, Wallet} from '../contract/index.js'
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
