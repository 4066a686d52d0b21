import type {TransactionView} from '../../contract/api/surface.js'
import type {TimelinePage} from '../../contract/inspector.js'
import {eventLinesShown, productNotesOfBnpl, type TimelineLine} from '../../contract/timeline/lines.js'
import {
  type FeedPage,
  type FeedPosition,
  Timeline,
  type TimelinePosition,
  type TimelineReads,
} from '../../contract/timeline/merge.js'
import type {LedgerEntry} from '../../contract/wallets.js'
import type {EventDetail, EventSummary} from '../../contract/webhooks.js'
import {ApiError} from '../http/api-error.js'
import type {InspectorService} from './service.js'

/** Lines of the timeline a page shows. */
export const TIMELINE_PAGE = 50
/** Records read at once from each source. */
const READ = 100

/**
 * A record as the API sends it, read as the client reads it: the timeline is made from the shapes
 * `users inspect` gets, so an amount beyond 2^53 (written exactly, as raw JSON) becomes a bigint.
 */
function asSent<T>(record: unknown): T {
  const text = JSON.stringify(record)
  // Without a run of 16 digits no integer is beyond 2^53.
  if (!/\d{16}/.test(text)) return JSON.parse(text) as T
  return JSON.parse(text, function (
    this: unknown,
    _key: string,
    value: unknown,
    context?: {source?: string},
  ) {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? ''))
      return BigInt(context!.source!)
    return value
  } as (this: unknown, key: string, value: unknown) => unknown) as T
}

type Paged = {hasMore?: boolean; nextCursor?: string | null}
const nextOf = (page: Paged) =>
  page.hasMore === true && typeof page.nextCursor === 'string' ? page.nextCursor : undefined

/** The timeline's reads, from the sandbox's own operations for the signed-in partner. */
function sandboxReads(service: InspectorService, partnerId: string, userId: string): TimelineReads {
  const list = async <T>(
    operation: 'listTransactions' | 'listEvents' | 'listLedgerEntries',
    field: string,
    input: {id?: string; query: Record<string, unknown>},
    cursor: string | undefined,
  ): Promise<FeedPage<T>> => {
    const query = {...input.query, limit: READ, ...(cursor === undefined ? {} : {cursor})}
    const page = asSent<Paged & Record<string, unknown>>(
      await service.read(partnerId, operation, {...input, query}),
    )
    return {items: (page[field] ?? []) as T[], next: nextOf(page)}
  }
  return {
    transactions: (cursor) =>
      list<TransactionView>('listTransactions', 'transactions', {query: {userId}}, cursor),
    events: (cursor) => list<EventSummary>('listEvents', 'events', {query: {userId}}, cursor),
    ledger: (id, cursor) => list<LedgerEntry>('listLedgerEntries', 'entries', {id, query: {}}, cursor),
    transaction: async (id) => asSent<TransactionView>(await service.read(partnerId, 'getTransaction', {id})),
    event: async (id) => asSent<EventDetail>(await service.read(partnerId, 'getEvent', {id})),
  }
}

/** Every page of a list of the user's, as the sandbox answers it. */
async function all<T>(
  service: InspectorService,
  partnerId: string,
  operation: 'listWallets' | 'listBnplPayments',
  field: string,
  userId: string,
): Promise<T[]> {
  const items: T[] = []
  let cursor: string | undefined
  do {
    const query = {userId, limit: READ, ...(cursor === undefined ? {} : {cursor})}
    const page = asSent<Paged & Record<string, unknown>>(await service.read(partnerId, operation, {query}))
    items.push(...((page[field] ?? []) as T[]))
    cursor = nextOf(page)
  } while (cursor !== undefined)
  return items
}

const encode = (p: TimelinePosition) => Buffer.from(JSON.stringify(p)).toString('base64url')

const isPosition = (p: unknown): p is FeedPosition =>
  p === 'end' ||
  (typeof p === 'object' &&
    p !== null &&
    Number.isSafeInteger((p as {skip?: unknown}).skip) &&
    (p as {skip: number}).skip >= 0 &&
    ((p as {page?: unknown}).page === null || typeof (p as {page?: unknown}).page === 'string'))

function decode(cursor: string | undefined): TimelinePosition | undefined {
  if (cursor === undefined || cursor === '') return undefined
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as TimelinePosition
    const ledgers = Object.values(p.ledgers ?? {})
    const ids = (list: unknown) => Array.isArray(list) && list.every((id) => typeof id === 'string')
    if (
      ![p.transactions, p.events, ...ledgers].every(isPosition) ||
      !ids(p.claimed) ||
      (p.carried !== undefined && !ids(p.carried))
    )
      throw new Error('bad position')
    return p
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'Malformed timeline cursor', {field: 'cursor'})
  }
}

/**
 * A page of a user's timeline, newest first: the lines `payctl users inspect` tells (contract's
 * timeline/merge.ts), made from the sandbox's own records in the shapes the API answers: each
 * wallet's ledger lines with the amount that moved it, the balance they left and how the webhooks
 * about it fared, the transactions that moved nothing, and (`events`, as `--events`) the events
 * as lines of their own. The cursor says where each source stopped, so the first page of a user
 * with 10,000 transactions reads one page of each.
 */
export async function timelinePage(
  service: InspectorService,
  partnerId: string,
  userId: string,
  page: {cursor?: string | undefined; events: boolean},
): Promise<TimelinePage<TimelineLine>> {
  await service.read(partnerId, 'getUser', {id: userId})
  const from = decode(page.cursor)
  const [wallets, bnpl] = await Promise.all([
    all<{id: string}>(service, partnerId, 'listWallets', 'wallets', userId),
    all<Record<string, unknown>>(service, partnerId, 'listBnplPayments', 'payments', userId),
  ])
  const timeline = new Timeline(
    sandboxReads(service, partnerId, userId),
    wallets.map((w) => w.id),
    {from, events: eventLinesShown(page.events)},
  )
  await timeline.start()
  for (const p of bnpl) for (const [id, note] of productNotesOfBnpl(p)) timeline.notes.set(id, note)
  const lines: TimelineLine[] = []
  for (let line = await timeline.next(); line !== undefined; line = await timeline.next()) {
    lines.push(line)
    if (lines.length === TIMELINE_PAGE) break
  }
  if (lines.length < TIMELINE_PAGE) return {lines, nextCursor: null}
  const position = timeline.position()
  const more = (await timeline.next()) !== undefined
  return {lines, nextCursor: more ? encode(position) : null}
}
