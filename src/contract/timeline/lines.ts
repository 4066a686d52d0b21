import type {TransactionView} from '../api/surface.js'
import {exactNumber, formatMoney, minorFrom} from '../money/format.js'
import type {LedgerEntry} from '../wallets.js'
import type {EventDetail, EventSummary} from '../webhooks.js'

/**
 * The lines of a customer's timeline and how each is made from what the service answers: a wallet's
 * ledger entries (money that moved, with the balance it left), transactions that moved nothing
 * (a declined card) or whose ledger cannot be had, and events with their deliveries. In the
 * contract, so that `users inspect` (core) and the sandbox's browser inspector tell a line alike.
 */

export const TIMELINE_KINDS = [
  'deposit',
  'withdrawal',
  'transfer',
  'payment',
  'refund',
  'roundup',
  'bnpl',
  'p2p',
  'card',
  'wallet',
  'adjustment',
  'event',
] as const
export type TimelineKind = (typeof TIMELINE_KINDS)[number]

/** A balance as the ledger gives it after an entry. */
export interface BalanceAfter {
  available: number | bigint
  pending: number | bigint
  reserved: number | bigint
  total: number | bigint
  currency: string
}

/** How one delivery of an event fared, attempt by attempt. */
export interface DeliveryOutcome {
  id: string
  to: string | null
  status: string
  attempts: number
  tries: {at: string; status: number | null; error: string | null}[]
}

/** A webhook event about a line's money movement, and how its deliveries fared. */
export interface LineEvent {
  id: string
  event: string
  /** What its deliveries came to, in words, as its own line says it (`delivered on try 2`). */
  status: string
  /** Its deliveries, where the service shows them. */
  deliveries?: DeliveryOutcome[]
}

/** One line of the timeline: one thing that happened to the customer's money, or an event about it. */
export interface TimelineLine {
  /** When, as the service recorded it. */
  at: string
  kind: TimelineKind
  what: string
  /** Signed, in the smallest unit: what the line moved in the wallet (absent where nothing did). */
  amount?: number | bigint
  currency?: string
  walletId?: string
  /** The other side: a wallet, a payment method or bank account, a merchant, a user. */
  otherSide?: string
  status?: string
  /** The record the line is about: a transaction, an event. */
  id: string
  /** What the line was made from: the wallet's ledger, a transaction record, an event. */
  source: 'ledger' | 'transaction' | 'event'
  /** The ids of the records it merges. */
  sourceIds: Record<string, string>
  /** The wallet's balance right after the line, where the ledger gives it. */
  balanceAfter?: BalanceAfter
  /** An event's deliveries (where the service shows them). */
  deliveries?: DeliveryOutcome[]
  /**
   * What the webhooks about the line's movement came to, in a few words (`delivered on try 2`, `no
   * webhook`): absent where no event is about it, and on an event's own line (its `status` says).
   */
  webhook?: string
  /** The webhook events about the line's movement (about its transaction, or the other leg of a transfer). */
  events?: LineEvent[]
  /** An event's data, as recorded. */
  data?: Record<string, unknown>
}

/** What a product record says about a transaction it moved (a BNPL instalment, a P2P send…). */
export interface ProductNote {
  kind: TimelineKind
  what: string
  otherSide?: string | undefined
}

/** An entry group: the entries one transaction posted to one wallet at one moment. */
export interface LedgerGroup {
  walletId: string
  transactionId: string
  at: string
  amount: bigint
  currency: string
  balanceAfter: BalanceAfter
}

/** A group of entries from the newest-first entries of one transaction and moment. */
export function groupOf(walletId: string, entries: LedgerEntry[]): LedgerGroup {
  const newest = entries[0]!
  return {
    walletId,
    transactionId: newest.transactionId,
    at: newest.createdAt,
    amount: entries.reduce((sum, e) => sum + (minorFrom(e.amount) ?? 0n), 0n),
    currency: newest.currency,
    balanceAfter: newest.balanceAfter,
  }
}

const METHODS: Record<string, string> = {
  card: 'card',
  ach: 'ACH',
  wire: 'wire',
  crypto: 'crypto',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  wallet: 'wallet',
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)

/** Which wallet a transaction record is the history of, seen from `walletId`'s side. */
function credits(t: TransactionView, walletId: string | undefined): boolean {
  if (t.type === 'refund') return t.destinationWalletId !== undefined && t.destinationWalletId === walletId
  return ['deposit', 'transfer_in', 'adjustment'].includes(t.type)
}

/** What a transaction is, in a few words, its kind and its other side, seen from one wallet. */
export function describeTransaction(
  t: TransactionView,
  walletId: string | undefined,
  product: ProductNote | undefined,
): {kind: TimelineKind; what: string; otherSide: string | undefined} {
  const method = METHODS[str(t.method) ?? ''] ?? str(t.method)
  const incoming = credits(t, walletId)
  const other = incoming ? t.sourceWalletId : t.destinationWalletId
  if (product !== undefined) {
    const what = product.kind === 'p2p' ? (incoming ? 'P2P received' : 'P2P sent') : product.what
    return {kind: product.kind, what, otherSide: product.otherSide ?? other}
  }
  switch (t.type) {
    case 'deposit':
      return {kind: 'deposit', what: `${method ?? ''} top-up`.trim(), otherSide: t.paymentMethodId}
    case 'withdrawal':
      return {kind: 'withdrawal', what: `${method ?? ''} withdrawal`.trim(), otherSide: t.paymentMethodId}
    case 'transfer_out':
      return {kind: 'transfer', what: 'transfer out', otherSide: t.destinationWalletId}
    case 'transfer_in':
      return {kind: 'transfer', what: 'transfer in', otherSide: t.sourceWalletId}
    case 'refund':
      return {kind: 'refund', what: 'refund', otherSide: str(t.originalTransactionId) ?? other}
    case 'adjustment':
      return {kind: 'adjustment', what: 'initial balance', otherSide: undefined}
    default:
      return {kind: 'payment', what: t.type, otherSide: str(t.description) ?? other ?? t.paymentMethodId}
  }
}

/** A failure's code: what its reason says before the colon (`R01`, `card_declined`). */
const failureCode = (reason: unknown) => str(reason)?.split(':', 1)[0]

/**
 * The status a transaction had at one of its moments: at its creation an asynchronous payment was
 * processing and a since refunded one completed; later, it settled or failed.
 */
export function statusAt(t: TransactionView, creation: boolean): string {
  if (t.status === 'failed' && !(creation && t.estimatedCompletion !== undefined)) {
    const code = failureCode(t.failureReason)
    return code === undefined ? 'failed' : `failed ${code}`
  }
  if (creation && t.estimatedCompletion !== undefined) return 'processing'
  if (t.status === 'refunded' || t.status === 'reversed') return 'completed'
  return t.status
}

const sameInstant = (a: string, b: string) => Date.parse(a) === Date.parse(b)

/** The line of an entry group, told by its transaction record where it is known. */
export function ledgerLine(
  g: LedgerGroup,
  t: TransactionView | undefined,
  product: ProductNote | undefined,
): TimelineLine {
  const base = {
    at: g.at,
    amount: exactNumber(g.amount),
    currency: g.currency,
    walletId: g.walletId,
    source: 'ledger' as const,
    balanceAfter: g.balanceAfter,
  }
  if (t === undefined) {
    return {
      ...base,
      kind: 'event',
      what: 'ledger entry',
      id: g.transactionId,
      sourceIds: {transactionId: g.transactionId},
    }
  }
  const told = describeTransaction(t, g.walletId, product)
  const creation = sameInstant(t.createdAt, g.at)
  const settled = creation ? '' : t.status === 'failed' ? ' failed' : ' settled'
  return {
    ...base,
    kind: told.kind,
    what: `${told.what}${settled}`,
    ...(told.otherSide === undefined ? {} : {otherSide: told.otherSide}),
    status: statusAt(t, creation),
    id: t.id,
    sourceIds: {
      transactionId: t.id,
      ...(t.id === g.transactionId ? {} : {ledgerTransactionId: g.transactionId}),
    },
  }
}

/** The line of a transaction no ledger entry tells: nothing moved, or the ledger cannot be had. */
export function transactionLine(
  t: TransactionView,
  walletId: string | undefined,
  product: ProductNote | undefined,
  withLedger: boolean,
): TimelineLine {
  const told = describeTransaction(t, walletId, product)
  const amount = minorFrom(t.amount) ?? 0n
  // Without a ledger the record's amount is what it moved, signed from the wallet's side; with
  // one, a transaction without entries moved nothing.
  const moved = withLedger || t.status === 'failed' ? 0n : credits(t, walletId) ? amount : -amount
  return {
    at: t.createdAt,
    kind: told.kind,
    what: t.status === 'failed' ? `${told.what} of ${formatMoney(amount, t.currency)}` : told.what,
    amount: exactNumber(moved),
    currency: t.currency,
    ...(walletId === undefined ? {} : {walletId}),
    ...(told.otherSide === undefined ? {} : {otherSide: told.otherSide}),
    status: statusAt(t, true),
    id: t.id,
    source: 'transaction',
    sourceIds: {transactionId: t.id},
  }
}

/** The kind of line an event makes, from its name. */
export function eventKind(name: string): TimelineKind {
  if (name.startsWith('roundup') || name.startsWith('roundupsvc.')) return 'roundup'
  if (name.startsWith('bnplsvc.')) return 'bnpl'
  if (name === 'walletsvc.card.created') return 'card'
  if (name.startsWith('walletsvc.p2p')) return 'p2p'
  if (name.startsWith('walletsvc.payment')) return 'payment'
  if (name === 'wallet.created') return 'wallet'
  return 'event'
}

/** What a delivery's attempts came to, in a few words: `delivered`, `delivered on try 2`, `failed ×8`. */
export function deliveryWords(d: DeliveryOutcome): string {
  if (d.status === 'succeeded') return d.attempts <= 1 ? 'delivered' : `delivered on try ${d.attempts}`
  if (d.status === 'failed') return `failed ×${d.attempts}`
  return d.attempts === 0 ? 'pending' : `retrying (${d.attempts} failed)`
}

/** An event's deliveries as the timeline keeps them, from the event's detail. */
export function outcomesOf(detail: EventDetail): DeliveryOutcome[] {
  return detail.deliveries.map((d) => ({
    id: d.id,
    to: d.url ?? d.listenSessionId,
    status: d.status,
    attempts: d.attempts,
    tries: d.attemptLog.map((a) => ({at: a.at, status: a.status, error: a.error})),
  }))
}

/** The transaction an event is about, where it names one. */
export function transactionOf(data: Record<string, unknown>): string | undefined {
  const id = str(data.transactionId) ?? str(data.transaction_id) ?? str(data.transferId) ?? str(data.id)
  return id?.startsWith('txn_') ? id : undefined
}

/** The other side an event names: the merchant of a purchase or payment, else what it is about. */
function subjectOf(data: Record<string, unknown>): string | undefined {
  return str(data.merchantName) ?? str(data.merchant_name) ?? transactionOf(data) ?? str(data.id)
}

/** How an event's deliveries fared, in words: each delivery's, or the counts where they are not shown. */
function eventStatus(e: EventSummary, deliveries: DeliveryOutcome[] | undefined): string {
  const counts = e.deliveries
  if (deliveries !== undefined)
    return deliveries.length === 0 ? 'no webhook' : deliveries.map(deliveryWords).join(', ')
  return counts.total === 0 ? 'no webhook' : `${counts.succeeded}/${counts.total} delivered`
}

/** The line of an event: what it announced, about what, and how its deliveries fared. */
export function eventLine(e: EventSummary, deliveries: DeliveryOutcome[] | undefined): TimelineLine {
  const status = eventStatus(e, deliveries)
  const about = subjectOf(e.data)
  const txn = transactionOf(e.data)
  return {
    at: e.timestamp,
    kind: eventKind(e.event),
    what: e.event,
    ...(about === undefined ? {} : {otherSide: about}),
    status,
    id: e.id,
    source: 'event',
    sourceIds: {eventId: e.id, ...(txn === undefined ? {} : {transactionId: txn})},
    ...(deliveries === undefined ? {} : {deliveries}),
    data: e.data,
  }
}

/**
 * A line of money with the webhook events about its movement: each event, and what their
 * deliveries came to in a few words (each outcome once: `delivered, delivered on try 2`).
 */
export function withWebhooks(
  line: TimelineLine,
  found: {summary: EventSummary; deliveries: DeliveryOutcome[] | undefined}[],
): TimelineLine {
  if (found.length === 0) return line
  const events = found.map(
    ({summary, deliveries}): LineEvent => ({
      id: summary.id,
      event: summary.event,
      status: eventStatus(summary, deliveries),
      ...(deliveries === undefined ? {} : {deliveries}),
    }),
  )
  const words = events.flatMap((e) =>
    e.deliveries !== undefined
      ? e.deliveries.map(deliveryWords)
      : e.status === 'no webhook'
        ? []
        : [e.status],
  )
  const webhook = words.length === 0 ? 'no webhook' : [...new Set(words)].join(', ')
  return {...line, webhook, events}
}

/**
 * The kinds whose lines are all events' (a wallet or a card made, and the webhook events about
 * money): asking for one by `--kind` shows those event lines without `--events`.
 */
const EVENT_KINDS: ReadonlySet<TimelineKind> = new Set(['event', 'wallet', 'card'])

/**
 * Whether a timeline shows events as lines of their own: when asked (`--events`, the inspector's
 * switch), or when the kinds asked for are made only by events. Otherwise a line of money says
 * how the webhooks about it fared, and the events are no lines of their own.
 */
export function eventLinesShown(events: boolean, kinds?: Iterable<TimelineKind>): boolean {
  return events || [...(kinds ?? [])].some((k) => EVENT_KINDS.has(k))
}

/** What the product events and records say of the transactions they moved, by transaction id. */
export function productNotesOfEvent(e: EventSummary): [string, ProductNote][] {
  const d = e.data
  switch (e.event) {
    case 'walletsvc.payment.completed': {
      const id = str(d.transactionId)
      return id === undefined
        ? []
        : [[id, {kind: 'payment', what: 'wallet payment', otherSide: str(d.merchantName)}]]
    }
    case 'walletsvc.p2p.sent': {
      const [out, back] = Array.isArray(d.transactionIds) ? d.transactionIds.map(str) : []
      return [
        ...(out === undefined
          ? []
          : [[out, {kind: 'p2p', what: 'P2P sent', otherSide: str(d.toUserId)}] as const]),
        ...(back === undefined
          ? []
          : [[back, {kind: 'p2p', what: 'P2P received', otherSide: str(d.fromUserId)}] as const]),
      ] as [string, ProductNote][]
    }
    case 'roundupsvc.transfer.completed': {
      const id = str(d.transaction_id)
      const to = str(d.destination_account_id)
      return id === undefined ? [] : [[id, {kind: 'roundup', what: 'round-up transfer', otherSide: to}]]
    }
    default:
      return []
  }
}

/** The BNPL instalments a payment collected, by transaction id. */
export function productNotesOfBnpl(p: Record<string, unknown>): [string, ProductNote][] {
  const schedule = Array.isArray(p.schedule) ? (p.schedule as Record<string, unknown>[]) : []
  const merchant = str(p.merchantName)
  return schedule.flatMap((i): [string, ProductNote][] => {
    const id = str(i?.transactionId)
    const n = typeof i?.number === 'number' ? i.number : undefined
    const what = `BNPL instalment${n === undefined ? '' : ` ${n} of ${schedule.length}`}`
    return id === undefined ? [] : [[id, {kind: 'bnpl', what, otherSide: merchant}]]
  })
}

/** A round-up transfer names itself in its transaction's metadata. */
export function productNoteOfRecord(t: TransactionView): ProductNote | undefined {
  const transfer = str(t.metadata?.roundup_transfer_id)
  return transfer === undefined
    ? undefined
    : {kind: 'roundup', what: 'round-up transfer', otherSide: undefined}
}
