import type {LedgerEntry, TransactionView, WalletView} from '../../contract/index.js'
import {type FeedPage, mapLimited} from '../../contract/timeline/merge.js'
import type {EventDetail, EventSummary} from '../../contract/webhooks.js'
import type {PayctlClient} from '../client.js'
import {
  bnplPaymentsOf,
  boundMs,
  clientReads,
  type Missing,
  reasonOf,
  serviceNow,
  subjectOf,
  unavailable,
} from '../investigation.js'
import {allItems} from '../pagination.js'

/**
 * A customer's story read from a service, through its public interface and only by reads: the
 * reader of `users inspect` (investigation.ts), taken page after page to the end of the window
 * rather than merged into lines. What the service does not offer is named in `missing`, and the
 * rest is read all the same.
 */

type Loose = Record<string, unknown>

export interface SourceStory {
  /** The service's now when the story was read (its clock, for a sandbox). */
  now: string
  since: string
  user: Loose
  wallets: WalletView[]
  /** Oldest first. */
  transactions: TransactionView[]
  /** Each wallet's entries, oldest first; undefined where the ledger cannot be had. */
  ledger: Map<string, LedgerEntry[]> | undefined
  /** Oldest first, each with its deliveries where it had some. */
  events: {summary: EventSummary; detail: EventDetail | undefined}[]
  bnplPayments: Loose[]
  roundupSettings: Loose | undefined
  pendingRoundups: Loose[]
  paymentMethods: Loose[]
  missing: Missing[]
}

export interface ReadOptions {
  /** A user id, or the email of one user. */
  user: string
  /** How far back: a duration (`90d`) or an instant; default 90 days. */
  since?: string | undefined
  /** Whether the source is a payctl sandbox (its clock is its now). */
  sandbox: boolean
}

const PAGE = 100
/** Events read in full at once (each had deliveries). */
const DETAILS_AT_ONCE = 8

/** Every page of a source, oldest first; a source the service does not offer is named in `missing`. */
async function whole<T>(
  what: string,
  page: (cursor: string | undefined) => Promise<FeedPage<T>>,
  missing: Missing[],
): Promise<T[] | undefined> {
  try {
    const items: T[] = []
    let cursor: string | undefined
    do {
      const got = await page(cursor)
      items.push(...got.items)
      cursor = got.next
    } while (cursor !== undefined)
    return items.reverse()
  } catch (err) {
    if (!unavailable(err)) throw err
    if (!missing.some((m) => m.what === what)) missing.push({what, reason: reasonOf(err)})
    return undefined
  }
}

/** One read the service may not offer: its answer, or undefined with the reason in `missing`. */
async function optional<T>(what: string, read: () => Promise<T>, missing: Missing[]): Promise<T | undefined> {
  try {
    return await read()
  } catch (err) {
    if (!unavailable(err)) throw err
    missing.push({what, reason: reasonOf(err)})
    return undefined
  }
}

/** Read the whole story of one user over the window, every source at once. */
export async function readStory(client: PayctlClient, opts: ReadOptions): Promise<SourceStory> {
  const [subject, now] = await Promise.all([
    subjectOf(client, {subject: {user: opts.user}}),
    serviceNow(client, opts.sandbox),
  ])
  const sinceMs = boundMs(opts.since ?? '90d', now.ms, 'since')
  const window = {since: new Date(sinceMs).toISOString(), until: null}
  const userId = String(subject.user.id)
  const reads = clientReads(client, {userId}, window, {sinceMs, untilMs: undefined})
  const missing: Missing[] = []
  const [transactions, ledgers, events, bnpl, settings, pending, methods] = await Promise.all([
    whole('transactions', reads.transactions, missing),
    Promise.all(subject.wallets.map((w) => whole('ledger entries', (c) => reads.ledger(w.id, c), missing))),
    whole('events', reads.events, missing),
    bnplPaymentsOf(client, userId, missing),
    optional('round-up settings', () => client.call('getRoundupSettings', {params: {id: userId}}), missing),
    optional('pending round-ups', () => client.call('getPendingRoundups', {params: {id: userId}}), missing),
    optional('payment methods', () => paymentMethods(client, userId), missing),
  ])
  const ledger = ledgers.some((l) => l === undefined)
    ? undefined
    : new Map(subject.wallets.map((w, i) => [w.id, ledgers[i]!]))
  const txns = transactions ?? []
  await addTold(reads.transaction, txns, ledger)
  return {
    now: new Date(now.ms).toISOString(),
    since: window.since,
    user: subject.user,
    wallets: subject.wallets,
    transactions: txns,
    ledger,
    events: await withDetails(events ?? [], reads.event),
    bnplPayments: bnpl ?? [],
    roundupSettings: settingsOf(settings as Loose | undefined, missing),
    pendingRoundups: pendingOf(pending as Loose | undefined, missing),
    paymentMethods: methods ?? [],
    missing,
  }
}

/**
 * The transactions the window's ledger entries were posted by but the window's list does not
 * hold (made before it, settled in it), the other legs of its transfers and what its refunds
 * refund: read one by one, so that every entry has its record, every leg its pair and every refund
 * its original.
 */
async function addTold(
  read: (id: string) => Promise<TransactionView>,
  txns: TransactionView[],
  ledger: Map<string, LedgerEntry[]> | undefined,
): Promise<void> {
  const known = new Set(txns.map((t) => t.id))
  const told = new Set<string>()
  for (const entries of ledger?.values() ?? []) for (const e of entries) told.add(e.transactionId)
  // The other leg of a transfer to someone else's wallet: the events about it are about this one too.
  for (const t of txns) if (typeof t.pairedTransactionId === 'string') told.add(t.pairedTransactionId)
  const more = [...told].filter((id) => !known.has(id))
  // What a refund of the window refunds, made before it: read too, so the refund keeps its link
  // (where the service will not show it, the refund is loaded without it).
  const originals = [
    ...new Set(txns.map((t) => t.originalTransactionId).filter((id) => typeof id === 'string')),
  ].filter((id) => !known.has(id) && !told.has(id))
  const got = [
    ...(await Promise.all(more.map((id) => read(id)))),
    ...(await Promise.all(originals.map((id) => read(id).catch(() => undefined)))).filter(
      (t) => t !== undefined,
    ),
  ]
  // Oldest first, as the list is, each among those of its time after the list's own (a stable sort).
  txns.push(...got)
  txns.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
}

function withDetails(
  events: EventSummary[],
  read: (id: string) => Promise<EventDetail>,
): Promise<SourceStory['events']> {
  // Each delivery's attempts are in the event's detail: asked for only where there were some.
  return mapLimited(events, DETAILS_AT_ONCE, async (summary) => ({
    summary,
    detail: summary.deliveries.total === 0 ? undefined : await read(summary.id).catch(() => undefined),
  }))
}

/** Round-up settings as the service shows them; where it shows no multiplier (only `enabled`), named. */
function settingsOf(settings: Loose | undefined, missing: Missing[]): Loose | undefined {
  if (settings === undefined || typeof settings.multiplier === 'number') return settings
  missing.push({
    what: 'round-up settings',
    reason:
      'the service shows no multiplier, cap or currency (the platform’s interface shows only `enabled`)',
  })
  return undefined
}

function pendingOf(pending: Loose | undefined, missing: Missing[]): Loose[] {
  const list = Array.isArray(pending?.roundups) ? (pending.roundups as Loose[]) : []
  if (typeof pending?.count === 'number' && pending.count > list.length)
    missing.push({
      what: `${pending.count - list.length} pending round-ups`,
      reason:
        'the service shows the oldest 100 of a user’s pending round-ups; their total stays in the balance it will move',
    })
  return list
}

async function paymentMethods(client: PayctlClient, userId: string): Promise<Loose[]> {
  const all: Loose[] = []
  for await (const m of allItems(
    (cursor) => client.call('listPaymentMethods', {params: {id: userId}, query: {limit: PAGE, cursor}}),
    (page) => (Array.isArray(page.paymentMethods) ? (page.paymentMethods as Loose[]) : []),
  ))
    all.push(m)
  return all
}
