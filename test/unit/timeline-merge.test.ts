import {describe, expect, it} from 'vitest'
import type {TransactionView} from '../../src/contract/api/surface.js'
import type {TimelineLine} from '../../src/contract/timeline/lines.js'
import {Timeline, type TimelinePosition, type TimelineReads} from '../../src/contract/timeline/merge.js'
import type {LedgerEntry} from '../../src/contract/wallets.js'
import type {EventDetail, EventSummary} from '../../src/contract/webhooks.js'

/**
 * The timeline's one rule, read whole (as `users inspect` does) and read a few lines at a time,
 * each time from the position the last reading stopped at (as the inspector's pages do): the same
 * lines, in the same order, wherever the pages of its sources and its own pages fall.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 12, minute)).toISOString()
const A = 'wal_a'
const B = 'wal_b'

const txn = (
  t: Partial<TransactionView> & {id: string; type: string; createdAt: string},
): TransactionView => ({
  status: 'completed',
  amount: 0,
  currency: 'USD',
  fee: 0,
  netAmount: 0,
  completedAt: null,
  ...t,
})

/** The user's records, newest first: a card top-up, an ACH returned, a transfer between their wallets, a declined card, one received. */
const transactions: TransactionView[] = [
  txn({
    id: 'txn_in',
    type: 'transfer_in',
    createdAt: at(6),
    amount: 300,
    destinationWalletId: B,
    sourceWalletId: 'wal_x',
    pairedTransactionId: 'txn_x',
  }),
  txn({
    id: 'txn_declined',
    type: 'deposit',
    createdAt: at(4),
    status: 'failed',
    method: 'card',
    amount: 900,
    destinationWalletId: A,
    paymentMethodId: 'pm_card_declined',
    failureReason: 'card_declined: no',
  }),
  txn({
    id: 'txn_out',
    type: 'transfer_out',
    createdAt: at(3),
    amount: 200,
    sourceWalletId: A,
    destinationWalletId: B,
    pairedTransactionId: 'txn_back',
  }),
  txn({
    id: 'txn_back',
    type: 'transfer_in',
    createdAt: at(3),
    amount: 200,
    sourceWalletId: A,
    destinationWalletId: B,
    pairedTransactionId: 'txn_out',
  }),
  txn({
    id: 'txn_ach',
    type: 'deposit',
    createdAt: at(2),
    status: 'failed',
    method: 'ach',
    amount: 500,
    destinationWalletId: A,
    estimatedCompletion: at(5),
    failureReason: 'R01: insufficient funds',
  }),
  txn({
    id: 'txn_card',
    type: 'deposit',
    createdAt: at(1),
    method: 'card',
    amount: 1000,
    fee: 59,
    netAmount: 941,
    destinationWalletId: A,
    paymentMethodId: 'pm_card_visa',
  }),
]
/** Another user's half of the transfer received, which a ledger entry of B is filed under. */
const theirs = txn({
  id: 'txn_x',
  type: 'transfer_out',
  createdAt: at(6),
  amount: 300,
  sourceWalletId: 'wal_x',
  destinationWalletId: B,
  pairedTransactionId: 'txn_in',
})

const entry = (
  transactionId: string,
  minute: number,
  amount: number,
  total: number,
  bucket = 'available',
): LedgerEntry =>
  ({
    transactionId,
    bucket,
    amount,
    currency: 'USD',
    balanceAfter: {available: total, pending: 0, reserved: 0, total, currency: 'USD'},
    createdAt: at(minute),
  }) as LedgerEntry

const ledgers: Record<string, LedgerEntry[]> = {
  [A]: [
    entry('txn_ach', 5, -500, 741, 'pending'),
    entry('txn_out', 3, -150, 1241),
    entry('txn_out', 3, -50, 1391),
    entry('txn_ach', 2, 500, 1441, 'pending'),
    entry('txn_card', 1, 941, 941),
  ],
  [B]: [entry('txn_x', 6, 300, 500), entry('txn_out', 3, 200, 200)],
}

const event = (
  id: string,
  name: string,
  minute: number,
  data: Record<string, unknown>,
  deliveries = 0,
): EventSummary =>
  ({
    id,
    event: name,
    timestamp: at(minute),
    data,
    deliveries: {total: deliveries, succeeded: deliveries, pending: 0, failed: 0},
  }) as EventSummary

const events: EventSummary[] = [
  event('evt_failed', 'transaction.failed', 5, {id: 'txn_ach'}),
  event('evt_out', 'transaction.completed', 3, {id: 'txn_out'}, 1),
  event('evt_card', 'transaction.completed', 1, {id: 'txn_card'}, 1),
  event('evt_wallet', 'wallet.created', 0, {id: A}),
]

/** Pages of two: every source's pages break often. */
function paged<T>(items: T[], cursor: string | undefined) {
  const from = cursor === undefined ? 0 : Number(cursor)
  const next = from + 2 < items.length ? String(from + 2) : undefined
  return Promise.resolve({items: items.slice(from, from + 2), next})
}

const reads: TimelineReads = {
  transactions: (cursor) => paged(transactions, cursor),
  events: (cursor) => paged(events, cursor),
  ledger: (walletId, cursor) => paged(ledgers[walletId] ?? [], cursor),
  transaction: async (id) => {
    const found = [...transactions, theirs].find((t) => t.id === id)
    if (found === undefined) throw new Error(`no ${id}`)
    return found
  },
  event: async (id) =>
    ({
      ...events.find((e) => e.id === id)!,
      deliveries: [
        {
          id: `dlv_${id}`,
          url: 'http://127.0.0.1/hook',
          listenSessionId: null,
          status: 'succeeded',
          attempts: 1,
          attemptLog: [{at: at(1), status: 200, error: null}],
        },
      ],
    }) as unknown as EventDetail,
}

async function whole(events = true, from: TimelineReads = reads): Promise<TimelineLine[]> {
  const timeline = new Timeline(from, [A, B], {events})
  await timeline.start()
  const lines: TimelineLine[] = []
  for await (const line of timeline.lines()) lines.push(line)
  return lines
}

/** The timeline read `size` lines at a time, each reading from where the last stopped (through JSON, as a cursor). */
async function inPages(size: number, events = true): Promise<TimelineLine[]> {
  const lines: TimelineLine[] = []
  let from: TimelinePosition | undefined
  for (;;) {
    const timeline = new Timeline(reads, [A, B], {from, events})
    await timeline.start()
    let taken = 0
    for (let line = await timeline.next(); line !== undefined; line = await timeline.next()) {
      lines.push(line)
      if (++taken === size) break
    }
    if (taken < size) return lines
    from = JSON.parse(JSON.stringify(timeline.position())) as TimelinePosition
  }
}

describe('the timeline', () => {
  it('tells what moved each wallet, net of fees, with the balance after, and what moved nothing', async () => {
    const lines = await whole()
    expect(
      lines.map((l) => [l.id, l.what, l.amount ?? null, l.balanceAfter?.total ?? null, l.status]),
    ).toEqual([
      ['txn_in', 'transfer in', 300, 500, 'completed'],
      ['txn_ach', 'ACH top-up failed', -500, 741, 'failed R01'],
      ['evt_failed', 'transaction.failed', null, null, 'no webhook'],
      ['txn_declined', 'card top-up of 9.00 USD', 0, null, 'failed card_declined'],
      ['txn_out', 'transfer out', -200, 1241, 'completed'],
      ['txn_back', 'transfer in', 200, 200, 'completed'],
      ['evt_out', 'transaction.completed', null, null, 'delivered'],
      ['txn_ach', 'ACH top-up', 500, 1441, 'processing'],
      ['txn_card', 'card top-up', 941, 941, 'completed'],
      ['evt_card', 'transaction.completed', null, null, 'delivered'],
      ['evt_wallet', 'wallet.created', null, null, 'no webhook'],
    ])
  })

  it('without event lines, says on each line of money how the webhooks about it fared', async () => {
    const lines = await whole(false)
    expect(lines.map((l) => [l.id, l.what, l.webhook ?? null, l.events?.map((e) => e.id) ?? null])).toEqual([
      ['txn_in', 'transfer in', null, null],
      ['txn_ach', 'ACH top-up failed', 'no webhook', ['evt_failed']],
      ['txn_declined', 'card top-up of 9.00 USD', null, null],
      // Both lines of a transfer between the user's wallets: the first carries its events.
      ['txn_out', 'transfer out', 'delivered', ['evt_out']],
      ['txn_back', 'transfer in', null, null],
      ['txn_ach', 'ACH top-up', null, null],
      ['txn_card', 'card top-up', 'delivered', ['evt_card']],
    ])
    expect(lines.find((l) => l.id === 'txn_card')!.events![0]!.deliveries![0]).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    })
    // With event lines, the lines of money carry the same.
    const withEvents = (await whole(true)).filter((l) => l.source !== 'event')
    expect(withEvents).toEqual(lines)
  })

  it('carries an event recorded a moment after the movement it is about', async () => {
    const later = (e: EventSummary) =>
      e.id === 'evt_card' ? {...e, timestamp: new Date(Date.parse(e.timestamp) + 30_000).toISOString()} : e
    const late: TimelineReads = {...reads, events: (cursor) => paged(events.map(later), cursor)}
    const lines = await whole(false, late)
    expect(lines.find((l) => l.id === 'txn_card')).toMatchObject({webhook: 'delivered'})
  })

  it.each([true, false])(
    'is the same read a few lines at a time, from where each reading stopped (event lines: %s)',
    async (events) => {
      const all = await whole(events)
      for (let size = 1; size <= all.length + 1; size++)
        expect(await inPages(size, events), `${size} a page`).toEqual(all)
    },
  )

  it('starts a wallet the position does not name at its end: it was made after the reading began', async () => {
    const timeline = new Timeline(reads, [A], {})
    await timeline.start()
    await timeline.next()
    const {ledgers: _, ...rest} = timeline.position()
    const later = new Timeline(reads, [A, B], {from: {...rest, ledgers: {}}})
    await later.start()
    const lines: TimelineLine[] = []
    for await (const line of later.lines()) lines.push(line)
    expect(lines.some((l) => l.source === 'ledger')).toBe(false)
  })
})
