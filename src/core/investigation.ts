import type {EventSummary, LedgerEntry, TransactionView, WalletView} from '../contract/index.js'
import {
  type DeliveryOutcome,
  eventLine,
  groupOf,
  type LedgerGroup,
  ledgerLine,
  outcomesOf,
  type ProductNote,
  productNoteOfRecord,
  productNotesOfBnpl,
  productNotesOfEvent,
  type TimelineKind,
  type TimelineLine,
  transactionLine,
} from '../contract/timeline.js'
import {notOffered, type PayctlClient} from './client.js'
import {PayctlError, usageError} from './errors.js'
import {allItems} from './pagination.js'
import {Feed, type FeedPage, mapLimited} from './timeline-feed.js'

/**
 * A customer's whole story from what the service answers (`payctl users inspect`, `wallets
 * inspect`): who they are, their wallets and balances, their BNPL payments, and a timeline merged
 * newest first from the wallets' ledger entries, their transactions and the events about them,
 * streamed as the pages arrive. What the service does not offer is named, never guessed at.
 */

export interface InvestigationOptions {
  /** The user to inspect, or the wallet (then its owner is the user, and the timeline its own). */
  subject: {user: string} | {wallet: string}
  /** Narrow a user's timeline to one of their wallets. */
  wallet?: string | undefined
  /** A duration back from the service's now (`24h`, `30d`) or an ISO instant; default 30 days. */
  since?: string | undefined
  until?: string | undefined
  /** Only lines of these kinds. */
  kinds?: readonly TimelineKind[] | undefined
  /** Whether the service is the local sandbox, whose clock (the partner's) is its now. */
  sandbox?: boolean | undefined
}

/** A part of the story the service did not give, and why. */
export interface Missing {
  what: string
  reason: string
}

export interface Investigation {
  user: Record<string, unknown>
  wallets: WalletView[]
  /** Undefined when the service does not list them. */
  bnplPayments: Record<string, unknown>[] | undefined
  window: {since: string; until: string | null; now: string; clock: 'service' | 'machine'}
  missing: Missing[]
  /** The timeline, newest first, line by line as the pages arrive. */
  lines: AsyncGenerator<TimelineLine>
}

const PAGE = 100
const UNIT: Record<string, number> = {s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3}

/** A bound of the window in milliseconds: a duration back from `nowMs`, or an instant. */
export function boundMs(value: string, nowMs: number, flag: string): number {
  const duration = /^(\d{1,6})([smhdw])$/.exec(value.trim())
  if (duration !== null) return nowMs - Number(duration[1]) * UNIT[duration[2]!]!
  const ms = Date.parse(value)
  if (/^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(ms)) return ms
  throw usageError(`--${flag} takes a duration (24h, 7d) or an instant; got "${value}"`, 'INVALID_FLAG', {
    flag: `--${flag}`,
    value,
  })
}

/** Whether a failed call means the service does not offer this (or not to these credentials). */
function unavailable(err: unknown): err is PayctlError {
  return err instanceof PayctlError && (err.code === 'NOT_OFFERED' || notOffered(err) || err.status === 403)
}

function reasonOf(err: PayctlError): string {
  if (err.code === 'NOT_OFFERED' || notOffered(err))
    return `the service answered ${err.status ?? 'no'}; the platform's interface shows no such list, only payctl's sandbox extensions do`
  return `${err.code}: ${err.message}`
}

/** The service's now: the partner's clock of a sandbox, the machine's clock otherwise. */
async function serviceNow(
  client: PayctlClient,
  sandbox: boolean,
): Promise<{ms: number; clock: 'service' | 'machine'}> {
  if (sandbox) {
    try {
      const reading = await client.call('sandboxClock')
      return {ms: Date.parse(reading.now), clock: 'service'}
    } catch {
      // Credentials without the control scope: the machine's clock, as against any service.
    }
  }
  return {ms: Date.now(), clock: 'machine'}
}

async function subjectOf(client: PayctlClient, opts: InvestigationOptions) {
  if ('wallet' in opts.subject) {
    const wallet = await client.call('getWallet', {params: {id: opts.subject.wallet}})
    const user = await client.call('getUser', {params: {id: wallet.userId}})
    return {user: user as Record<string, unknown>, wallets: [wallet], scope: {walletId: wallet.id}}
  }
  const userId = opts.subject.user
  const user = await client.call('getUser', {params: {id: userId}})
  const wallets: WalletView[] = []
  for await (const w of allItems(
    async (cursor): Promise<{wallets: WalletView[]} & Paged> =>
      client.call('listWallets', {query: {userId, limit: PAGE, cursor}}),
    (page) => page.wallets,
  ))
    wallets.push(w)
  if (opts.wallet === undefined) return {user: user as Record<string, unknown>, wallets, scope: {userId}}
  const chosen = wallets.find((w) => w.id === opts.wallet)
  if (chosen === undefined)
    throw usageError(`--wallet ${opts.wallet} is not one of ${userId}'s wallets`, 'INVALID_FLAG', {
      flag: '--wallet',
      value: opts.wallet,
    })
  return {user: user as Record<string, unknown>, wallets: [chosen], scope: {walletId: chosen.id}}
}

async function bnplPaymentsOf(
  client: PayctlClient,
  userId: string,
  missing: Missing[],
): Promise<Record<string, unknown>[] | undefined> {
  try {
    const all: Record<string, unknown>[] = []
    for await (const p of allItems(
      (cursor) => client.call('listBnplPayments', {query: {userId, limit: PAGE, cursor}}),
      (page) => (Array.isArray(page.payments) ? (page.payments as Record<string, unknown>[]) : []),
    ))
      all.push(p)
    return all
  } catch (err) {
    if (!unavailable(err)) throw err
    missing.push({what: 'BNPL payments', reason: reasonOf(err)})
    return undefined
  }
}

/** Start the story: the subject, the window and the first page of every source. */
export async function investigate(client: PayctlClient, opts: InvestigationOptions): Promise<Investigation> {
  const [subject, now] = await Promise.all([
    subjectOf(client, opts),
    serviceNow(client, opts.sandbox === true),
  ])
  const sinceMs = boundMs(opts.since ?? '30d', now.ms, 'since')
  const untilMs = opts.until === undefined ? undefined : boundMs(opts.until, now.ms, 'until')
  const window = {
    since: new Date(sinceMs).toISOString(),
    until: untilMs === undefined ? null : new Date(untilMs).toISOString(),
    now: new Date(now.ms).toISOString(),
    clock: now.clock,
  }
  const missing: Missing[] = []
  const userId = String(subject.user.id ?? '')
  const scopeWallet = 'walletId' in subject.scope ? subject.scope.walletId : undefined
  const sources = new Sources(client, subject.scope, {since: window.since, until: window.until ?? undefined})
  const [bnpl] = await Promise.all([
    bnplPaymentsOf(client, userId, missing),
    sources.start(subject.wallets, {sinceMs, untilMs}, missing),
  ])
  const bnplPayments = scopeWallet === undefined ? bnpl : bnpl?.filter((p) => p.walletId === scopeWallet)
  for (const p of bnplPayments ?? [])
    for (const [id, note] of productNotesOfBnpl(p)) sources.notes.set(id, note)
  const kinds = opts.kinds === undefined || opts.kinds.length === 0 ? undefined : new Set(opts.kinds)
  return {
    user: subject.user,
    wallets: subject.wallets,
    bnplPayments,
    window,
    missing,
    lines: sources.merged(kinds, scopeWallet),
  }
}

/** An event with its deliveries, where the service shows them. */
interface EventItem {
  summary: EventSummary
  deliveries: DeliveryOutcome[] | undefined
}

/** A wallet's ledger entries, one group (a transaction's entries at one moment) at a time. */
class LedgerGroups {
  #head: LedgerGroup | undefined | null = null
  constructor(
    readonly walletId: string,
    readonly feed: Feed<LedgerEntry>,
  ) {}

  async peek(): Promise<LedgerGroup | undefined> {
    if (this.#head === null) this.#head = await this.#build()
    return this.#head
  }

  take(): void {
    this.#head = null
  }

  async #build(): Promise<LedgerGroup | undefined> {
    const first = await this.feed.peek()
    if (first === undefined) return undefined
    const entries = [this.feed.take()!]
    for (let n = await this.feed.peek(); n !== undefined; n = await this.feed.peek()) {
      if (n.transactionId !== first.transactionId || n.createdAt !== first.createdAt) break
      entries.push(this.feed.take()!)
    }
    return groupOf(this.walletId, entries)
  }
}

const ms = (iso: string) => Date.parse(iso)
/** The feed of a source the service does not offer. */
const nothing = <T>(): Feed<T> =>
  new Feed(
    async (): Promise<FeedPage<T>> => ({items: [], next: undefined}),
    () => 0,
  )

/** The record's own wallet: a transfer's two records are each a wallet's history. */
function ownWallet(t: TransactionView): string | undefined {
  if (t.type === 'transfer_out') return t.sourceWalletId
  if (t.type === 'transfer_in') return t.destinationWalletId
  if (t.sourceWalletId !== undefined && t.destinationWalletId !== undefined) return undefined
  return t.sourceWalletId ?? t.destinationWalletId
}

/** The three kinds of source the timeline merges, and what it has learnt from them so far. */
class Sources {
  readonly notes = new Map<string, ProductNote>()
  readonly #known = new Map<string, TransactionView>()
  readonly #fetched = new Map<string, Promise<TransactionView | undefined>>()
  readonly #claimed = new Set<string>()
  #ledgers: LedgerGroups[] = []
  #ledgerMissing = false
  #txns!: Feed<TransactionView>
  #events!: Feed<EventItem>

  constructor(
    private readonly client: PayctlClient,
    private readonly scope: {userId: string} | {walletId: string},
    private readonly window: {since: string; until: string | undefined},
  ) {}

  /** The first page of every source; a source the service does not offer is named in `missing`. */
  async start(
    wallets: WalletView[],
    bounds: {sinceMs: number; untilMs: number | undefined},
    missing: Missing[],
  ): Promise<void> {
    this.#open(wallets, bounds)
    const tried = async (what: string, feed: {start(): Promise<void>}, orElse: () => void) => {
      try {
        await feed.start()
      } catch (err) {
        if (!unavailable(err)) throw err
        missing.push({what, reason: reasonOf(err)})
        orElse()
      }
    }
    await Promise.all([
      tried('transactions', this.#txns, () => {
        this.#txns = nothing()
      }),
      tried('events', this.#events, () => {
        this.#events = nothing()
      }),
      ...this.#ledgers.map((l, i) =>
        tried('ledger entries', l.feed, () => {
          this.#ledgerMissing = true
          this.#ledgers[i] = new LedgerGroups(l.walletId, nothing())
        }),
      ),
    ])
    // One line for the ledger, however many wallets said so.
    const seen = new Set<string>()
    missing.splice(0, missing.length, ...missing.filter((m) => !seen.has(m.what) && seen.add(m.what)))
  }

  #open(wallets: WalletView[], bounds: {sinceMs: number; untilMs: number | undefined}): void {
    const query = {...this.scope, ...this.window, limit: PAGE}
    this.#txns = new Feed(
      async (cursor) => {
        const page = await this.client.call('listTransactions', {query: {...query, cursor}})
        return {items: page.transactions, next: nextOf(page)}
      },
      (t) => ms(t.createdAt),
      (t) => this.#known.set(t.id, t),
    )
    this.#events = new Feed(
      (cursor) => this.#eventPage({...query, cursor}),
      (e) => ms(e.summary.timestamp),
      (e) => {
        for (const [id, note] of productNotesOfEvent(e.summary)) this.notes.set(id, note)
      },
    )
    this.#ledgers = wallets.map(
      (w) =>
        new LedgerGroups(
          w.id,
          new Feed(
            (c) => this.#ledgerPage(w.id, c, bounds),
            (e) => ms(e.createdAt),
          ),
        ),
    )
  }

  async #eventPage(query: Record<string, unknown>): Promise<FeedPage<EventItem>> {
    const page = await this.client.call('listEvents', {query})
    // Each delivery's outcome is in the event's detail: asked for only where there were deliveries.
    const items = await mapLimited(page.events, 8, async (summary): Promise<EventItem> => {
      if (summary.deliveries.total === 0) return {summary, deliveries: []}
      try {
        return {
          summary,
          deliveries: outcomesOf(await this.client.call('getEvent', {params: {id: summary.id}})),
        }
      } catch {
        return {summary, deliveries: undefined}
      }
    })
    return {items, next: nextOf(page)}
  }

  async #ledgerPage(
    walletId: string,
    cursor: string | undefined,
    bounds: {sinceMs: number; untilMs: number | undefined},
  ): Promise<FeedPage<LedgerEntry>> {
    const page = await this.client.call('listLedgerEntries', {
      params: {id: walletId},
      query: {limit: PAGE, cursor},
    })
    // The ledger has no time filter: entries after the window are passed over, and the first one
    // before it ends the walk.
    const inWindow = page.entries.filter(
      (e) => bounds.untilMs === undefined || ms(e.createdAt) < bounds.untilMs,
    )
    const before = inWindow.findIndex((e) => ms(e.createdAt) < bounds.sinceMs)
    if (before !== -1) return {items: inWindow.slice(0, before), next: undefined}
    return {items: inWindow, next: nextOf(page)}
  }

  /** The transaction a group's entries belong to, seen from the group's wallet. */
  async #recordFor(g: LedgerGroup): Promise<TransactionView | undefined> {
    const t = await this.#transaction(g.transactionId)
    if (t === undefined) return undefined
    const own = ownWallet(t)
    // A transfer's entries are filed under its outgoing record, for both wallets.
    if (own !== undefined && own !== g.walletId && typeof t.pairedTransactionId === 'string') {
      return (await this.#transaction(t.pairedTransactionId)) ?? t
    }
    return t
  }

  #transaction(id: string): Promise<TransactionView | undefined> {
    const known = this.#known.get(id)
    if (known !== undefined) return Promise.resolve(known)
    let fetched = this.#fetched.get(id)
    if (fetched === undefined) {
      fetched = this.client.call('getTransaction', {params: {id}}).then(
        (t) => t,
        () => undefined,
      )
      this.#fetched.set(id, fetched)
    }
    return fetched
  }

  /** The newest source head: ledger groups first, then transactions, then events, at one instant. */
  async #next(): Promise<{from: 'ledger'; index: number} | {from: 'txn' | 'event'} | undefined> {
    let best: {at: number; pick: {from: 'ledger'; index: number} | {from: 'txn' | 'event'}} | undefined
    const consider = (at: number, pick: {from: 'ledger'; index: number} | {from: 'txn' | 'event'}) => {
      if (best === undefined || at > best.at) best = {at, pick}
    }
    for (const [index, l] of this.#ledgers.entries()) {
      const g = await l.peek()
      if (g !== undefined) consider(ms(g.at), {from: 'ledger', index})
    }
    const t = await this.#txns.peek()
    if (t !== undefined) consider(ms(t.createdAt), {from: 'txn'})
    const e = await this.#events.peek()
    if (e !== undefined) consider(ms(e.summary.timestamp), {from: 'event'})
    return (best as {pick: {from: 'ledger'; index: number} | {from: 'txn' | 'event'}} | undefined)?.pick
  }

  /** The timeline, newest first, merged from every source as their pages arrive. */
  async *merged(
    kinds: ReadonlySet<TimelineKind> | undefined,
    scopeWallet: string | undefined,
  ): AsyncGenerator<TimelineLine> {
    for (let next = await this.#next(); next !== undefined; next = await this.#next()) {
      const line = await this.#lineOf(next, scopeWallet)
      if (line !== undefined && (kinds === undefined || kinds.has(line.kind))) yield line
    }
  }

  async #lineOf(
    next: {from: 'ledger'; index: number} | {from: 'txn' | 'event'},
    scopeWallet: string | undefined,
  ): Promise<TimelineLine | undefined> {
    if (next.from === 'ledger') {
      const ledger = this.#ledgers[next.index]!
      const g = (await ledger.peek())!
      ledger.take()
      // What the line refers to was recorded at the same moment: read that far in the others.
      await Promise.all([this.#txns.readTo(ms(g.at)), this.#events.readTo(ms(g.at))])
      const t = await this.#recordFor(g)
      this.#claimed.add(g.transactionId)
      if (t !== undefined) this.#claimed.add(t.id)
      const note =
        t === undefined
          ? undefined
          : (this.notes.get(t.id) ?? this.notes.get(g.transactionId) ?? productNoteOfRecord(t))
      return ledgerLine(g, t, note)
    }
    if (next.from === 'txn') {
      const t = this.#txns.take()!
      const paired = typeof t.pairedTransactionId === 'string' ? t.pairedTransactionId : undefined
      if (this.#claimed.has(t.id) || (paired !== undefined && this.#claimed.has(paired))) return undefined
      const note = this.notes.get(t.id) ?? productNoteOfRecord(t)
      return transactionLine(t, ownWallet(t) ?? scopeWallet, note, !this.#ledgerMissing)
    }
    const e = this.#events.take()!
    return eventLine(e.summary, e.deliveries)
  }
}

type Paged = {hasMore?: unknown; nextCursor?: unknown}

function nextOf(page: object): string | undefined {
  const {hasMore, nextCursor} = page as Paged
  return hasMore === true && typeof nextCursor === 'string' && nextCursor !== '' ? nextCursor : undefined
}
