import type {TransactionView} from '../api/surface.js'
import type {LedgerEntry} from '../wallets.js'
import type {EventDetail, EventSummary} from '../webhooks.js'
import {
  type DeliveryOutcome,
  eventLine,
  groupOf,
  type LedgerGroup,
  ledgerLine,
  outcomesOf,
  type ProductNote,
  productNoteOfRecord,
  productNotesOfEvent,
  type TimelineKind,
  type TimelineLine,
  transactionLine,
  transactionOf,
  withWebhooks,
} from './lines.js'

/**
 * The one rule of a customer's timeline: which lines, each line's amount as it moved the wallet and
 * the balance after it, in which order. It merges, newest first, each wallet's ledger entries, the
 * transactions and the events about them, as `users inspect` (core, through the HTTP client) and the
 * sandbox's browser inspector (from the sandbox's own records) read them: each gives the reads,
 * in the shapes the API answers, and gets the same lines. It can stop after any line and start
 * again from where it stopped (a page of the inspector's timeline, then the next).
 */

/** One page of a source: its items, newest first, and the cursor of the next page, if any. */
export interface FeedPage<T> {
  items: T[]
  next: string | undefined
}

/** Where a source stands: the page its next item is in and how many of that page are behind; 'end' once read. */
export type FeedPosition = {page: string | null; skip: number} | 'end'

const FIRST: FeedPosition = {page: null, skip: 0}

/**
 * A list the service pages newest first, read ahead one page at a time: the timeline looks at the
 * head of each of its sources and takes the newest, so it needs the next item of every source
 * before it can make a line, and never more than that (it streams).
 */
class Feed<T> {
  readonly #fetch: (cursor: string | undefined) => Promise<FeedPage<T>>
  readonly #timeOf: (item: T) => number
  readonly #onItem: ((item: T) => void) | undefined
  #buffer: {item: T; page: string | null; index: number}[] = []
  #pending: {page: string | null; answer: Promise<FeedPage<T>>} | undefined
  #skip = 0

  constructor(
    fetch: (cursor: string | undefined) => Promise<FeedPage<T>>,
    timeOf: (item: T) => number,
    onItem?: (item: T) => void,
    from: FeedPosition = FIRST,
  ) {
    this.#fetch = fetch
    this.#timeOf = timeOf
    this.#onItem = onItem
    if (from !== 'end') {
      this.#pending = {page: from.page, answer: quiet(fetch(from.page ?? undefined))}
      this.#skip = from.skip
    }
  }

  /** The first page, as the service answered it: where it fails, the source is not to be had. */
  async start(): Promise<void> {
    await this.#pull()
  }

  async #pull(): Promise<boolean> {
    if (this.#pending === undefined) return false
    const {page, answer} = this.#pending
    const got = await answer
    // The next page is asked for at once: it is on its way while this one is used.
    this.#pending =
      got.next === undefined ? undefined : {page: got.next, answer: quiet(this.#fetch(got.next))}
    // What the items passed over say is still learnt (an event's product note).
    for (const item of got.items) this.#onItem?.(item)
    got.items.forEach((item, index) => {
      if (index >= this.#skip) this.#buffer.push({item, page, index})
    })
    this.#skip = 0
    return true
  }

  /** The newest item not taken yet. */
  async peek(): Promise<T | undefined> {
    while (this.#buffer.length === 0) if (!(await this.#pull())) break
    return this.#buffer[0]?.item
  }

  take(): T | undefined {
    return this.#buffer.shift()?.item
  }

  /** The items read and not taken yet, newest first. */
  buffered(): readonly T[] {
    return this.#buffer.map((b) => b.item)
  }

  /** Read pages until every item at or after `ms` is buffered (what a line at `ms` may refer to). */
  async readTo(ms: number): Promise<void> {
    for (;;) {
      const last = this.#buffer.at(-1)
      if (last !== undefined && this.#timeOf(last.item) < ms) return
      if (!(await this.#pull())) return
    }
  }

  /** Where the next item not taken is: a feed made from it starts there. */
  position(): FeedPosition {
    const head = this.#buffer[0]
    if (head !== undefined) return {page: head.page, skip: head.index}
    return this.#pending === undefined ? 'end' : {page: this.#pending.page, skip: this.#skip}
  }
}

/**
 * A page asked for ahead of time may fail before anyone waits for it: the failure is kept for
 * whoever reads it then, and is no unhandled rejection meanwhile.
 */
function quiet<P>(page: Promise<P>): Promise<P> {
  page.catch(() => undefined)
  return page
}

/** Run `work` on every item with at most `limit` at once, keeping their order. */
export async function mapLimited<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!)
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
  return results
}

/**
 * What the timeline is read from, for one user or wallet, newest first, in the shapes the API
 * answers (amounts beyond 2^53 as bigint): the client's calls, or the sandbox's own operations.
 */
export interface TimelineReads {
  transactions(cursor: string | undefined): Promise<FeedPage<TransactionView>>
  events(cursor: string | undefined): Promise<FeedPage<EventSummary>>
  ledger(walletId: string, cursor: string | undefined): Promise<FeedPage<LedgerEntry>>
  /** One transaction (rejects where it cannot be had). */
  transaction(id: string): Promise<TransactionView>
  /** One event with its deliveries (rejects where it cannot be had). */
  event(id: string): Promise<EventDetail>
}

/** Where a timeline stopped: each source's position, and the transactions its ledger lines told. */
export interface TimelinePosition {
  transactions: FeedPosition
  events: FeedPosition
  /** By wallet id; a wallet not named (one made since) has nothing older than where it stopped. */
  ledgers: Record<string, FeedPosition>
  claimed: string[]
  /** The events not read past yet that a line already carries (at its instant). */
  carried?: string[]
}

/** A source of the timeline, as a service may not offer it. */
export type TimelineSource = 'transactions' | 'events' | 'ledger entries'

/** An event with its deliveries, where the service shows them. */
interface EventItem {
  summary: EventSummary
  deliveries: DeliveryOutcome[] | undefined
}

/** How many of the transactions told by ledger lines a position keeps (their records come soon after). */
const CLAIMED_KEPT = 50

/** A wallet's ledger entries, one group (a transaction's entries at one moment) at a time. */
class LedgerGroups {
  #head: {group: LedgerGroup | undefined; from: FeedPosition} | null = null
  constructor(
    readonly walletId: string,
    readonly feed: Feed<LedgerEntry>,
  ) {}

  async peek(): Promise<LedgerGroup | undefined> {
    if (this.#head === null) {
      const first = await this.feed.peek()
      const from = this.feed.position()
      this.#head = {group: first === undefined ? undefined : await this.#build(first), from}
    }
    return this.#head.group
  }

  take(): void {
    this.#head = null
  }

  position(): FeedPosition {
    return this.#head?.from ?? this.feed.position()
  }

  async #build(first: LedgerEntry): Promise<LedgerGroup> {
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

type Pick = {from: 'ledger'; index: number} | {from: 'txn' | 'event'}

/**
 * A customer's timeline from its sources, line by line. `wallets` are the wallets whose ledgers
 * it tells; `scopeWallet` the one wallet it is narrowed to, if any; `from` where an earlier
 * reading stopped; `events` whether events are lines of their own (eventLinesShown). Either way a
 * line of money carries the events about its movement, with how their webhooks fared. What
 * product records say of transactions (a BNPL payment's schedule) goes in `notes` before the
 * first line.
 */
export class Timeline {
  readonly notes = new Map<string, ProductNote>()
  readonly #known = new Map<string, TransactionView>()
  readonly #fetched = new Map<string, Promise<TransactionView | undefined>>()
  readonly #claimed: Set<string>
  readonly #scopeWallet: string | undefined
  readonly #eventLines: boolean
  /** Events taken before the line of the transaction they are about (a later instant), by its id. */
  readonly #waiting = new Map<string, EventItem[]>()
  /** Events a line of money carries that are not taken yet (at its instant, in the buffer). */
  readonly #carried: Set<string>
  #ledgers: LedgerGroups[]
  #ledgerMissing = false
  #txns: Feed<TransactionView>
  #events: Feed<EventItem>

  constructor(
    private readonly reads: TimelineReads,
    wallets: readonly string[],
    opts: {
      scopeWallet?: string | undefined
      from?: TimelinePosition | undefined
      events?: boolean | undefined
    } = {},
  ) {
    const from = opts.from
    this.#scopeWallet = opts.scopeWallet
    this.#eventLines = opts.events ?? true
    this.#claimed = new Set(from?.claimed)
    this.#carried = new Set(from?.carried)
    this.#txns = new Feed(
      (cursor) => reads.transactions(cursor),
      (t) => ms(t.createdAt),
      (t) => this.#known.set(t.id, t),
      from?.transactions,
    )
    this.#events = new Feed(
      (cursor) => this.#eventPage(cursor),
      (e) => ms(e.summary.timestamp),
      (e) => {
        for (const [id, note] of productNotesOfEvent(e.summary)) this.notes.set(id, note)
      },
      from?.events,
    )
    this.#ledgers = wallets.map(
      (w) =>
        new LedgerGroups(
          w,
          new Feed(
            (cursor) => reads.ledger(w, cursor),
            (e) => ms(e.createdAt),
            undefined,
            from === undefined ? FIRST : (from.ledgers[w] ?? 'end'),
          ),
        ),
    )
  }

  /**
   * The first page of every source. A source whose read fails is an error, unless `unavailable`
   * says the service does not offer it: then it is left out (without a ledger, each transaction is a
   * line with its amount signed from the wallet's side).
   */
  async start(unavailable: (what: TimelineSource, err: unknown) => boolean = () => false): Promise<void> {
    const tried = async (what: TimelineSource, feed: {start(): Promise<void>}, orElse: () => void) => {
      try {
        await feed.start()
      } catch (err) {
        if (!unavailable(what, err)) throw err
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
  }

  /** The timeline, newest first, from where it stands, as the sources' pages arrive. */
  async *lines(kinds?: ReadonlySet<TimelineKind>): AsyncGenerator<TimelineLine> {
    for (let line = await this.next(); line !== undefined; line = await this.next())
      if (kinds === undefined || kinds.has(line.kind)) yield line
  }

  /** The next line, or undefined once every source is read. */
  async next(): Promise<TimelineLine | undefined> {
    for (let pick = await this.#pick(); pick !== undefined; pick = await this.#pick()) {
      const line = await this.#lineOf(pick)
      if (line !== undefined) return line
    }
    return undefined
  }

  /** Where the timeline stands: a timeline made from it goes on with the line after the last one given. */
  position(): TimelinePosition {
    return {
      transactions: this.#txns.position(),
      events: this.#events.position(),
      ledgers: Object.fromEntries(this.#ledgers.map((l) => [l.walletId, l.position()])),
      claimed: [...this.#claimed].slice(-CLAIMED_KEPT),
      ...(this.#carried.size === 0 ? {} : {carried: [...this.#carried]}),
    }
  }

  async #eventPage(cursor: string | undefined): Promise<FeedPage<EventItem>> {
    const page = await this.reads.events(cursor)
    // Each delivery's outcome is in the event's detail: asked for only where there were deliveries.
    const items = await mapLimited(page.items, 8, async (summary): Promise<EventItem> => {
      if (summary.deliveries.total === 0) return {summary, deliveries: []}
      try {
        return {summary, deliveries: outcomesOf(await this.reads.event(summary.id))}
      } catch {
        return {summary, deliveries: undefined}
      }
    })
    return {items, next: page.next}
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
      fetched = this.reads.transaction(id).then(
        (t) => t,
        () => undefined,
      )
      this.#fetched.set(id, fetched)
    }
    return fetched
  }

  /** The newest source head: ledger groups first, then transactions, then events, at one instant. */
  async #pick(): Promise<Pick | undefined> {
    let best: {at: number; pick: Pick} | undefined
    const consider = (at: number, pick: Pick) => {
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
    return (best as {pick: Pick} | undefined)?.pick
  }

  /** The line of the head `next` picked; undefined for a transaction a ledger line has told. */
  async #lineOf(next: Pick): Promise<TimelineLine | undefined> {
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
      return this.#webhooks(ledgerLine(g, t, note), [g.transactionId, ...idsOf(t)], g.at)
    }
    if (next.from === 'txn') {
      const t = this.#txns.take()!
      const paired = typeof t.pairedTransactionId === 'string' ? t.pairedTransactionId : undefined
      const told = this.#claimed.has(t.id) || (paired !== undefined && this.#claimed.has(paired))
      // Each record comes once: what its ledger lines told of it is needed no longer.
      this.#claimed.delete(t.id)
      if (told) return undefined
      await this.#events.readTo(ms(t.createdAt))
      const note = this.notes.get(t.id) ?? productNoteOfRecord(t)
      const line = transactionLine(t, ownWallet(t) ?? this.#scopeWallet, note, !this.#ledgerMissing)
      return this.#webhooks(line, idsOf(t), t.createdAt)
    }
    const e = this.#events.take()!
    const carried = this.#carried.delete(e.summary.id)
    const about = transactionOf(e.summary.data)
    // An event after the line of its transaction (newest first: taken before it) waits for it.
    if (!carried && about !== undefined) this.#waiting.set(about, [...(this.#waiting.get(about) ?? []), e])
    return this.#eventLines ? eventLine(e.summary, e.deliveries) : undefined
  }

  /**
   * A line of money with the events about its movement that no newer line carries: those taken
   * since (at a later instant) and those read at or after its instant, not taken yet.
   */
  #webhooks(line: TimelineLine, ids: string[], at: string): TimelineLine {
    const found: EventItem[] = []
    for (const id of ids) {
      found.push(...(this.#waiting.get(id) ?? []))
      this.#waiting.delete(id)
    }
    for (const e of this.#events.buffered()) {
      if (ms(e.summary.timestamp) < ms(at)) break
      const about = transactionOf(e.summary.data)
      if (about === undefined || !ids.includes(about) || this.#carried.has(e.summary.id)) continue
      this.#carried.add(e.summary.id)
      found.push(e)
    }
    return withWebhooks(line, found)
  }
}

/** The transactions a line of money is about: its record, and the other leg of a transfer. */
function idsOf(t: TransactionView | undefined): string[] {
  if (t === undefined) return []
  return typeof t.pairedTransactionId === 'string' ? [t.id, t.pairedTransactionId] : [t.id]
}
