import {
  majorToMinor,
  type PendingRoundups,
  type Roundup,
  type RoundupSettingsRecord,
  type RoundupTransfer,
} from '../contract/index.js'
import {formatMoney} from '../core/index.js'
import type {Column} from './output.js'
import {paint, STATUS_STYLES} from './terminal.js'

/** How round-ups look to a person. Their amounts travel in major units; they are shown exactly. */

const STYLES: Record<string, Parameters<typeof paint>[0]> = {
  ...STATUS_STYLES,
  skipped: 'gray',
  transferred: 'cyan',
}
export const roundupStatus = (s: string) => paint(STYLES[s] ?? 'white', s)

/** "1.30 USD" from a major-unit number, through the exact smallest unit, never float arithmetic. */
export function major(value: number, currency: RoundupSettingsRecord['currency']): string {
  try {
    return formatMoney(majorToMinor(value, currency), currency)
  } catch {
    // Not an amount this currency can hold (another service's answer): shown as it came.
    return `${value} ${currency}`
  }
}

export function roundupSettingsCard(s: RoundupSettingsRecord): [string, string | undefined][] {
  return [
    ['user', s.user_id],
    ['round-ups', s.enabled ? paint('green', 'on') : paint('gray', 'off')],
    ['multiplier', `×${s.multiplier}`],
    ['cap per purchase', major(s.max_roundup_amount, s.currency)],
    ['currency', s.currency],
    ['destination', s.destination_account_id ?? paint('yellow', 'none (transfers need one)')],
    ['updated', s.updated_at ?? 'never (defaults)'],
  ]
}

export function roundupCard(r: Roundup): [string, string | undefined][] {
  return [
    ['id', r.id],
    ['round-up', paint('bold', major(r.roundup_amount, r.currency))],
    ['status', roundupStatus(r.status)],
    ['reason', r.reason?.replaceAll('_', ' ') ?? (r.capped ? 'capped at max_roundup_amount' : undefined)],
    ['purchase', `${major(r.amount, r.currency)} at ${r.merchant_name}`],
    ['multiplier', `×${r.multiplier}`],
    ['transaction', r.transaction_id],
    ['user', r.user_id],
    ['processed', r.processed_at],
    ['note', r.duplicate ? paint('yellow', 'already processed: this is the first result') : undefined],
  ]
}

export const roundupColumns: Column<Roundup>[] = [
  {header: 'ID', get: (r) => r.id},
  {header: 'TRANSACTION', get: (r) => r.transaction_id},
  {header: 'MERCHANT', get: (r) => r.merchant_name},
  {header: 'PURCHASE', get: (r) => major(r.amount, r.currency)},
  {header: 'ROUND-UP', get: (r) => major(r.roundup_amount, r.currency)},
  {header: 'PROCESSED', get: (r) => r.processed_at},
]

export function pendingCard(p: PendingRoundups): [string, string | undefined][] {
  return [
    ['user', p.user_id],
    ['pending', paint('bold', major(p.total, p.currency))],
    ['round-ups', String(p.count)],
  ]
}

export function roundupTransferCard(t: RoundupTransfer): [string, string | undefined][] {
  return [
    ['id', t.id],
    ['status', roundupStatus(t.status)],
    ['amount', paint('bold', major(t.amount, t.currency))],
    ['round-ups', String(t.roundup_count)],
    ['from wallet', t.source_wallet_id],
    ['to', `${t.destination_account_id} (${t.destination_type.replace('_', ' ')})`],
    ['transaction', t.transaction_id],
    ['failure reason', t.failure_reason ? paint('red', t.failure_reason) : undefined],
    ['created', t.created_at],
    ['completed', t.completed_at ?? undefined],
  ]
}
