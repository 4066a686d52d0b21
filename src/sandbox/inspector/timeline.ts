import type {TimelinePage} from '../../contract/inspector.js'
import type {TransactionView} from '../../contract/surface.js'
import {
  eventLine,
  outcomesOf,
  productNoteOfRecord,
  productNotesOfEvent,
  statusAt,
  type TimelineLine,
  transactionLine,
} from '../../contract/timeline.js'
import type {EventDetail, EventSummary} from '../../contract/webhooks.js'
import {ApiError} from '../http/api-error.js'
import type {InspectorService} from './service.js'

/** Lines of the timeline a page shows. */
export const TIMELINE_PAGE = 50

/** Where a source stands: the cursor of the page it is in, and how many of that page were shown. */
interface Position {
  cursor: string | undefined
  skip: number
}

type Paged<T> = {items: T[]; nextCursor: string | undefined}

/** One source of the timeline, read page by page, newest first, from where a cursor left it. */
class Source<T> {
  #items: T[] = []
  #next: string | undefined
  #loaded = false
  #position: Position

  constructor(
    private readonly fetch: (cursor: string | undefined) => Promise<Paged<T>>,
    start: Position,
    readonly at: (item: T) => number,
  ) {
    this.#position = {...start}
  }

  /** The newest item not yet taken; undefined once the source is exhausted. */
  async head(): Promise<T | undefined> {
    while (this.#items.length === 0) {
      if (!this.#loaded) {
        const page = await this.fetch(this.#position.cursor)
        this.#items = page.items.slice(this.#position.skip)
        this.#next = page.nextCursor
        this.#loaded = true
      } else if (this.#next !== undefined) {
        const cursor = this.#next
        const page = await this.fetch(cursor)
        this.#position = {cursor, skip: 0}
        this.#items = page.items
        this.#next = page.nextCursor
      } else {
        return undefined
      }
    }
    return this.#items[0]
  }

  take(): T {
    this.#position.skip++
    return this.#items.shift()!
  }

  /** Where the next page starts in this source: its page's cursor, and how many of it were taken. */
  get position(): Position {
    return {...this.#position}
  }
}

/** The record's own wallet: a transfer's two records are each a wallet's history. */
function ownWallet(t: TransactionView): string | undefined {
  if (t.type === 'transfer_out') return t.sourceWalletId
  if (t.type === 'transfer_in') return t.destinationWalletId
  return t.sourceWalletId ?? t.destinationWalletId
}

const encode = (p: {t: Position; e: Position}) => Buffer.from(JSON.stringify(p)).toString('base64url')

function decode(cursor: string | undefined): {t: Position; e: Position} {
  const start = {cursor: undefined, skip: 0}
  if (cursor === undefined || cursor === '') return {t: start, e: start}
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {t: Position; e: Position}
    for (const s of [p.t, p.e]) {
      if (!Number.isSafeInteger(s.skip) || s.skip < 0 || !['string', 'undefined'].includes(typeof s.cursor))
        throw new Error('bad position')
    }
    return p
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'Malformed timeline cursor', {field: 'cursor'})
  }
}

/**
 * A page of a user's timeline, newest first: each of their transactions, told from its wallet's
 * side with its status now (the CLI's words: `card top-up`, `transfer out`, `failed R01`), and each
 * event about them with how its deliveries fared. The two are merged page by page, so the first
 * page of a user with 10,000 transactions reads one page of each.
 */
export async function timelinePage(
  service: InspectorService,
  partnerId: string,
  userId: string,
  cursor: string | undefined,
): Promise<TimelinePage<TimelineLine>> {
  await service.read(partnerId, 'getUser', {id: userId})
  const start = decode(cursor)
  const query = (c: string | undefined) => ({
    userId,
    limit: TIMELINE_PAGE,
    ...(c === undefined ? {} : {cursor: c}),
  })
  const txns = new Source<TransactionView>(
    async (c) => {
      const page = (await service.read(partnerId, 'listTransactions', {query: query(c)})) as {
        transactions: TransactionView[]
        nextCursor: string | null
      }
      return {items: page.transactions, nextCursor: page.nextCursor ?? undefined}
    },
    start.t,
    (t) => Date.parse(t.createdAt),
  )
  const events = new Source<EventSummary>(
    async (c) => {
      const page = (await service.read(partnerId, 'listEvents', {query: query(c)})) as {
        events: EventSummary[]
        nextCursor: string | null
      }
      return {items: page.events, nextCursor: page.nextCursor ?? undefined}
    },
    start.e,
    (e) => Date.parse(e.timestamp),
  )
  const lines: TimelineLine[] = []
  while (lines.length < TIMELINE_PAGE) {
    const [t, e] = [await txns.head(), await events.head()]
    if (t === undefined && e === undefined) break
    // At one instant the transaction comes before the events about it.
    if (t !== undefined && (e === undefined || txns.at(t) >= events.at(e))) {
      lines.push(await transactionOf(service, partnerId, txns.take()))
    } else {
      lines.push(await eventOf(service, partnerId, events.take()))
    }
  }
  const more = (await txns.head()) !== undefined || (await events.head()) !== undefined
  return {lines, nextCursor: more ? encode({t: txns.position, e: events.position}) : null}
}

async function transactionOf(
  service: InspectorService,
  partnerId: string,
  t: TransactionView,
): Promise<TimelineLine> {
  // What a product's event says of its transaction names it best (a wallet payment, a P2P send).
  let note = productNoteOfRecord(t)
  if (note === undefined && (t.type === 'payment' || t.type === 'transfer_out' || t.type === 'transfer_in')) {
    const {events} = (await service.read(partnerId, 'listEvents', {
      query: {transactionId: t.id, limit: 10},
    })) as {
      events: EventSummary[]
    }
    note = events.flatMap(productNotesOfEvent).find(([id]) => id === t.id)?.[1]
  }
  const line = transactionLine(t, ownWallet(t), note, false)
  return {...line, status: statusAt(t, false)}
}

async function eventOf(service: InspectorService, partnerId: string, e: EventSummary): Promise<TimelineLine> {
  if (e.deliveries.total === 0) return eventLine(e, [])
  const detail = (await service.read(partnerId, 'getEvent', {id: e.id})) as EventDetail
  return eventLine(e, outcomesOf(detail))
}
