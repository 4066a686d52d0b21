import type {LedgerEntry, TransactionView, WalletView} from '../contract/index.js'
import {
  eventLinesShown,
  productNotesOfBnpl,
  type TimelineKind,
  type TimelineLine,
} from '../contract/timeline/lines.js'
import {type FeedPage, Timeline, type TimelineReads} from '../contract/timeline/merge.js'
import {notOffered, type PayctlClient} from './client.js'
import {PayctlError, usageError} from './errors.js'
import {allItems} from './pagination.js'
import {resolveUserId} from './users.js'

/**
 * A customer's whole story from what the service answers (`payctl users inspect`, `wallets
 * inspect`): who they are, their wallets and balances, their BNPL payments, and a timeline merged
 * newest first from the wallets' ledger entries, their transactions and the events about them,
 * streamed as the pages arrive. What the service does not offer is named, never guessed at.
 */

export interface InvestigationOptions {
  /**
   * The user to inspect (an id, or the email of one user), or the wallet (then its owner is the
   * user, and the timeline its own).
   */
  subject: {user: string} | {wallet: string}
  /** Narrow a user's timeline to one of their wallets. */
  wallet?: string | undefined
  /** A duration back from the service's now (`24h`, `30d`) or an ISO instant; default 30 days. */
  since?: string | undefined
  until?: string | undefined
  /** Only lines of these kinds. */
  kinds?: readonly TimelineKind[] | undefined
  /**
   * Events as lines of their own (default: only where `kinds` asks for a kind only events make);
   * either way each line of money says how the webhooks about it fared.
   */
  events?: boolean | undefined
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
export function unavailable(err: unknown): err is PayctlError {
  return err instanceof PayctlError && (err.code === 'NOT_OFFERED' || notOffered(err) || err.status === 403)
}

/** Why a source is missing, in words. */
export function reasonOf(err: PayctlError): string {
  if (err.code === 'NOT_OFFERED' || notOffered(err))
    return `the service answered ${err.status ?? 'no'}; the platform's interface shows no such list, only payctl's sandbox extensions do`
  return `${err.code}: ${err.message}`
}

/** The service's now: the partner's clock of a sandbox, the machine's clock otherwise. */
export async function serviceNow(
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

/** The user and their wallets (or the one wallet) the story is about. */
export async function subjectOf(client: PayctlClient, opts: InvestigationOptions) {
  if ('wallet' in opts.subject) {
    const wallet = await client.call('getWallet', {params: {id: opts.subject.wallet}})
    const user = await client.call('getUser', {params: {id: wallet.userId}})
    return {user: user as Record<string, unknown>, wallets: [wallet], scope: {walletId: wallet.id}}
  }
  const userId = await resolveUserId(client, opts.subject.user)
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

/** The user's BNPL payments, or undefined (named in `missing`) where the service does not list them. */
export async function bnplPaymentsOf(
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
  const reads = clientReads(client, subject.scope, window, {sinceMs, untilMs})
  const timeline = new Timeline(
    reads,
    subject.wallets.map((w) => w.id),
    {scopeWallet, events: eventLinesShown(opts.events === true, opts.kinds)},
  )
  const [bnpl] = await Promise.all([
    bnplPaymentsOf(client, userId, missing),
    startTimeline(timeline, missing),
  ])
  const bnplPayments = scopeWallet === undefined ? bnpl : bnpl?.filter((p) => p.walletId === scopeWallet)
  for (const p of bnplPayments ?? [])
    for (const [id, note] of productNotesOfBnpl(p)) timeline.notes.set(id, note)
  const kinds = opts.kinds === undefined || opts.kinds.length === 0 ? undefined : new Set(opts.kinds)
  return {
    user: subject.user,
    wallets: subject.wallets,
    bnplPayments,
    window,
    missing,
    lines: timeline.lines(kinds),
  }
}

/** The first page of every source; a source the service does not offer is named in `missing`. */
async function startTimeline(timeline: Timeline, missing: Missing[]): Promise<void> {
  await timeline.start((what, err) => {
    if (!unavailable(err)) return false
    // One line for the ledger, however many wallets said so.
    if (!missing.some((m) => m.what === what)) missing.push({what, reason: reasonOf(err)})
    return true
  })
}

const ms = (iso: string) => Date.parse(iso)

/** The timeline's reads, as the service answers them, for the user or wallet and the window. */
export function clientReads(
  client: PayctlClient,
  scope: {userId: string} | {walletId: string},
  window: {since: string; until: string | null},
  bounds: {sinceMs: number; untilMs: number | undefined},
): TimelineReads {
  const query = {...scope, since: window.since, until: window.until ?? undefined, limit: PAGE}
  return {
    transactions: async (cursor) => {
      const page = await client.call('listTransactions', {query: {...query, cursor}})
      return {items: page.transactions, next: nextOf(page)}
    },
    events: async (cursor) => {
      const page = await client.call('listEvents', {query: {...query, cursor}})
      return {items: page.events, next: nextOf(page)}
    },
    ledger: (walletId, cursor) => ledgerPage(client, walletId, cursor, bounds),
    transaction: (id): Promise<TransactionView> => client.call('getTransaction', {params: {id}}),
    event: (id) => client.call('getEvent', {params: {id}}),
  }
}

async function ledgerPage(
  client: PayctlClient,
  walletId: string,
  cursor: string | undefined,
  bounds: {sinceMs: number; untilMs: number | undefined},
): Promise<FeedPage<LedgerEntry>> {
  const page = await client.call('listLedgerEntries', {
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

type Paged = {hasMore?: unknown; nextCursor?: unknown}

function nextOf(page: object): string | undefined {
  const {hasMore, nextCursor} = page as Paged
  return hasMore === true && typeof nextCursor === 'string' && nextCursor !== '' ? nextCursor : undefined
}
