import type {
  Loose,
  PendingRoundups,
  Roundup,
  RoundupSettingsRecord,
  RoundupTransfer,
} from '../../contract/index.js'
import {
  ABSENT,
  extraRows,
  isRecord,
  known,
  majorMoney,
  type Row,
  str,
  text,
} from '../rendering/field-readers.js'
import type {Column} from '../rendering/output.js'
import {paint, STATUS_STYLES} from '../rendering/terminal.js'

/** How round-ups look to a person. Their amounts travel in major units; they are shown exactly. */

const STYLES: Record<string, Parameters<typeof paint>[0]> = {
  ...STATUS_STYLES,
  skipped: 'gray',
  transferred: 'cyan',
}
export const roundupStatus = (s: unknown) => {
  const value = text(s)
  return value === undefined ? ABSENT : paint(STYLES[value] ?? 'white', value)
}

export function roundupSettingsCard(s: Loose<RoundupSettingsRecord>): Row[] {
  return [
    ['user', text(s.user_id)],
    [
      'round-ups',
      s.enabled === true ? paint('green', 'on') : s.enabled === false ? paint('gray', 'off') : ABSENT,
    ],
    ['multiplier', s.multiplier === undefined ? ABSENT : `×${known(s.multiplier)}`],
    ['cap per purchase', majorMoney(s.max_roundup_amount, s.currency)],
    ['currency', text(s.currency)],
    [
      'destination',
      'destination_account_id' in s
        ? (text(s.destination_account_id) ?? paint('yellow', 'none (transfers need one)'))
        : ABSENT,
    ],
    ['updated', 'updated_at' in s ? (text(s.updated_at) ?? 'never (defaults)') : undefined],
    ...extraRows(s, [
      'user_id',
      'enabled',
      'multiplier',
      'max_roundup_amount',
      'currency',
      'destination_account_id',
      'updated_at',
      'created_at',
    ]),
  ]
}

const ROUNDUP_FIELDS = [
  'id',
  'roundup_amount',
  'status',
  'reason',
  'capped',
  'amount',
  'merchant_name',
  'multiplier',
  'transaction_id',
  'user_id',
  'processed_at',
  'duplicate',
  'currency',
  'transfer_id',
]

export function roundupCard(r: Loose<Roundup>): Row[] {
  const purchase =
    r.amount === undefined && r.merchant_name === undefined
      ? undefined
      : `${majorMoney(r.amount, r.currency)} at ${known(r.merchant_name)}`
  return [
    ['id', text(r.id)],
    ['round-up', paint('bold', majorMoney(r.roundup_amount, r.currency))],
    ['status', r.status === undefined ? undefined : roundupStatus(r.status)],
    [
      'reason',
      text(r.reason)?.replaceAll('_', ' ') ??
        (r.capped === true ? 'capped at max_roundup_amount' : undefined),
    ],
    ['purchase', purchase],
    ['multiplier', r.multiplier === undefined ? undefined : `×${known(r.multiplier)}`],
    ['transaction', text(r.transaction_id)],
    ['user', text(r.user_id)],
    ['processed', text(r.processed_at)],
    [
      'note',
      r.duplicate === true ? paint('yellow', 'already processed: this is the first result') : undefined,
    ],
    ...extraRows(r, ROUNDUP_FIELDS),
  ]
}

export const roundupColumns: Column<Record<string, unknown>>[] = [
  {header: 'ID', get: (r) => known(r.id)},
  {header: 'TRANSACTION', get: (r) => known(r.transaction_id)},
  {header: 'MERCHANT', get: (r) => known(r.merchant_name)},
  {header: 'PURCHASE', get: (r) => majorMoney(r.amount, r.currency)},
  {header: 'ROUND-UP', get: (r) => majorMoney(r.roundup_amount, r.currency)},
  {header: 'PROCESSED', get: (r) => known(r.processed_at)},
]

/** The pending round-ups listed in an answer, whatever shape each came in. */
export function pendingRoundups(p: Loose<PendingRoundups>): Record<string, unknown>[] {
  return Array.isArray(p.roundups) ? p.roundups.filter(isRecord) : []
}

export function pendingCard(p: Loose<PendingRoundups>): Row[] {
  return [
    ['user', text(p.user_id)],
    ['pending', paint('bold', majorMoney(p.total, p.currency))],
    ['round-ups', known(p.count)],
    ...extraRows(p, ['user_id', 'total', 'currency', 'count', 'roundups']),
  ]
}

export function roundupTransferCard(t: Loose<RoundupTransfer>): Row[] {
  const to =
    t.destination_account_id === undefined
      ? undefined
      : `${known(t.destination_account_id)}${t.destination_type === undefined ? '' : ` (${known(t.destination_type).replace('_', ' ')})`}`
  return [
    ['id', known(t.id)],
    ['status', t.status === undefined ? ABSENT : roundupStatus(t.status)],
    ['amount', paint('bold', majorMoney(t.amount, t.currency))],
    ['round-ups', text(t.roundup_count)],
    ['from wallet', text(t.source_wallet_id)],
    ['to', to],
    ['transaction', text(t.transaction_id)],
    ['failure reason', str(t.failure_reason) ? paint('red', str(t.failure_reason)!) : undefined],
    ['created', text(t.created_at)],
    ['completed', text(t.completed_at)],
    ...extraRows(t, [
      'id',
      'status',
      'amount',
      'currency',
      'roundup_count',
      'source_wallet_id',
      'destination_account_id',
      'destination_type',
      'transaction_id',
      'failure_reason',
      'created_at',
      'completed_at',
      'user_id',
    ]),
  ]
}
