import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type SupportStory, supportStory} from '../helpers/support-story.js'

/**
 * The support ticket answered by one command (docs/support.md): the story of
 * test/helpers/support-story.ts, built through the CLI, and one `users inspect` whose lines account
 * for every cent. (The same in an 80-column terminal, and its first screen while later pages are on
 * their way, need payctl's own process: test/processes/users-inspect-*.test.ts.)
 */

let ticket: SupportStory
const cli = (...args: string[]) => ticket.cli(...args)

interface Line {
  at: string
  kind: string
  what: string
  amount?: number
  currency?: string
  walletId?: string
  otherSide?: string
  status?: string
  id: string
  source: string
  sourceIds: Record<string, string>
  balanceAfter?: {total: number}
  deliveries?: {status: string; attempts: number; tries: {status: number | null}[]}[]
  webhook?: string
  events?: {event: string; deliveries?: Line['deliveries']}[]
}
interface Story {
  user: {id: string}
  wallets: {id: string; currency: string; balance: {total: number}}[]
  bnplPayments: {id: string}[]
  window: {since: string; now: string; clock: string}
  missing: unknown[]
  timeline: Line[]
}
const story = async (...args: string[]) => {
  const r = await cli(...args, '--json')
  expect(r.exitCode, r.stderr).toBe(0)
  return r.json<Story>()
}

let ada: string
let usd: string
let eur: string
let bobs: string
let card: string
let ach: string
let refund: string
beforeAll(async () => {
  ticket = await supportStory()
  ;({ada, usd, eur, bobs, card, ach, refund} = ticket)
}, 120_000)
afterAll(async () => {
  await ticket?.stop()
})

/** The signed amounts of the lines of one wallet, in the smallest unit. */
const sumOf = (lines: Line[], wallet: string) =>
  lines.filter((l) => l.walletId === wallet).reduce((n, l) => n + (l.amount ?? 0), 0)

describe('users inspect', () => {
  it('accounts for every cent: the lines of each wallet add up to its balance', async () => {
    const s = await story('users', 'inspect', ada)
    expect(s.user.id).toBe(ada)
    expect(s.missing).toEqual([])
    expect(s.window.clock).toBe('service')
    expect(s.wallets.map((w) => w.id).sort()).toEqual([usd, eur].sort())
    for (const w of s.wallets) {
      expect(sumOf(s.timeline, w.id), w.currency).toBe(w.balance.total)
      // The newest line of a wallet that the ledger tells leaves the wallet's balance.
      const newest = s.timeline.find((l) => l.walletId === w.id && l.balanceAfter !== undefined)
      expect(newest?.balanceAfter?.total).toBe(w.balance.total)
    }
    expect(s.wallets.find((w) => w.id === eur)?.balance.total).toBeGreaterThan(0)
    // Every transaction of the user's wallets is a line (a transfer's incoming half under its pair).
    const listed = await cli('transactions', 'list', '--user', ada, '--all', '--json')
    const ids = new Set(s.timeline.flatMap((l) => [l.id, ...Object.values(l.sourceIds)]))
    for (const t of listed.json<{transactions: {id: string}[]}>().transactions) expect(ids).toContain(t.id)
  })

  it('tells each movement, newest first, with its status changes, other side and id', async () => {
    const {timeline} = await story('users', 'inspect', ada)
    const times = timeline.map((l) => Date.parse(l.at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    const of = (txn: string) => timeline.filter((l) => l.source !== 'event' && l.id === txn)
    // A failed ACH: processing when it came, failed with its code when it was returned.
    expect(of(ach).map((l) => [l.status, Math.sign(l.amount ?? 0)])).toEqual([
      ['failed R01', -1],
      ['processing', 1],
    ])
    expect(of(card)).toMatchObject([
      {kind: 'deposit', what: 'card top-up', status: 'completed', otherSide: 'pm_card_visa'},
    ])
    expect(of(refund)).toMatchObject([{kind: 'refund', otherSide: card, walletId: usd}])
    expect(of(refund)[0]!.amount).toBeLessThan(0)
    const kinds = new Set(timeline.map((l) => l.kind))
    for (const kind of ['deposit', 'transfer', 'refund', 'roundup', 'bnpl'])
      expect(kinds, kind).toContain(kind)
    const withEvents = new Set((await story('users', 'inspect', ada, '--events')).timeline.map((l) => l.kind))
    for (const kind of ['wallet', 'event']) expect(withEvents, kind).toContain(kind)
    expect(timeline.find((l) => l.kind === 'transfer')).toMatchObject({what: 'transfer out', otherSide: bobs})
    expect(timeline.find((l) => l.kind === 'roundup' && l.source === 'ledger')).toMatchObject({
      what: 'round-up transfer',
      otherSide: bobs,
    })
    expect(timeline.find((l) => l.kind === 'bnpl' && l.source === 'ledger')).toMatchObject({
      what: 'BNPL instalment 1 of 4',
      otherSide: 'Shoes',
      amount: -2000,
    })
  })

  it('says on the line of each movement how the webhooks about it fared; the events themselves with --events', async () => {
    const {timeline} = await story('users', 'inspect', ada)
    expect(timeline.filter((l) => l.source === 'event')).toEqual([])
    const of = (txn: string) => timeline.filter((l) => l.id === txn)
    expect(of(card)).toMatchObject([{what: 'card top-up', webhook: 'delivered on try 2'}])
    const [completed] = of(card)[0]!.events!
    expect(completed!.event).toBe('transaction.completed')
    expect(completed!.deliveries![0]!.tries.map((t) => t.status)).toEqual([500, 200])
    expect(of(ach).map((l) => [l.status, l.webhook])).toEqual([
      ['failed R01', 'delivered'],
      ['processing', undefined],
    ])
    expect(of(refund)[0]!.webhook).toBe('delivered')
    // The table: a WEBHOOK column, and no line of an event.
    const table = await cli('users', 'inspect', ada)
    expect(table.stdout).toMatch(/STATUS\s+WEBHOOK/)
    expect(table.stdout).toMatch(/card top-up .*completed\s+delivered on try 2/)
    expect(table.stdout).not.toContain('transaction.completed')
    // --events: the event lines too, and the same lines of money.
    const all = (await story('users', 'inspect', ada, '--events')).timeline
    const events = all.filter((l) => l.source === 'event')
    expect(events.map((l) => l.what)).toContain('transaction.failed')
    expect(all.filter((l) => l.source !== 'event')).toEqual(timeline)
    expect((await cli('users', 'inspect', ada, '--events')).stdout).toMatch(/transaction\.completed\s+/)
  })

  it("shows each webhook delivery's outcome: the one that failed, then succeeded", async () => {
    const {timeline} = await story('users', 'inspect', ada, '--kind', 'event')
    expect(timeline.every((l) => l.kind === 'event')).toBe(true)
    const retried = timeline.filter((l) => l.deliveries?.some((d) => d.attempts > 1))
    expect(retried).toHaveLength(1)
    expect(retried[0]).toMatchObject({what: 'transaction.completed', status: 'delivered on try 2'})
    expect(retried[0]!.deliveries![0]!.tries.map((t) => t.status)).toEqual([500, 200])
    expect(timeline.filter((l) => l.what === 'transaction.failed').map((l) => l.otherSide)).toContain(ach)
  })

  it('narrows to a wallet, a kind or a window, and reverses with --oldest-first', async () => {
    const onlyEur = await story('users', 'inspect', ada, '--wallet', eur)
    expect(onlyEur.wallets.map((w) => w.id)).toEqual([eur])
    expect(onlyEur.timeline.filter((l) => l.walletId !== undefined).every((l) => l.walletId === eur)).toBe(
      true,
    )
    expect(sumOf(onlyEur.timeline, eur)).toBe(onlyEur.wallets[0]!.balance.total)
    const refunds = await story('users', 'inspect', '--kind', 'refund', ada)
    expect(refunds.timeline.map((l) => l.id)).toEqual([refund])
    const two = await story('users', 'inspect', ada, '--kind', 'refund,transfer')
    expect(new Set(two.timeline.map((l) => l.kind))).toEqual(new Set(['refund', 'transfer']))
    // The service's now is the partner's clock, three days ahead: nothing happened in its last day.
    expect((await story('users', 'inspect', ada, '--since', '24h')).timeline).toEqual([])
    const newest = (await story('users', 'inspect', ada)).timeline
    const oldest = (await story('users', 'inspect', ada, '--oldest-first')).timeline
    expect(oldest.map((l) => l.id)).toEqual(newest.map((l) => l.id).reverse())
    const ndjson = await cli('users', 'inspect', ada, '--output', 'ndjson')
    const records = ndjson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line)
    expect(records.map((l) => l.id)).toEqual(newest.map((l) => l.id))
    expect(records.every((l) => Object.keys(l.sourceIds).length > 0)).toBe(true)
  })

  it("wallets inspect tells one wallet's story; errors name the flag or the record", async () => {
    const s = await story('wallets', 'inspect', usd)
    expect(s.user.id).toBe(ada)
    expect(s.wallets.map((w) => w.id)).toEqual([usd])
    expect(sumOf(s.timeline, usd)).toBe(s.wallets[0]!.balance.total)
    expect(s.timeline.some((l) => l.walletId === eur)).toBe(false)
    const notHers = await cli('users', 'inspect', ada, '--wallet', bobs)
    expect(notHers.exitCode).toBe(2)
    expect(notHers.stderr).toContain('--wallet')
    const unknown = await cli('users', 'inspect', 'usr_000000000000000000000000')
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('NOT_FOUND')
    const bare = await cli('users', 'inspect')
    expect(bare.exitCode).toBe(2)
    expect(bare.stderr).toMatch(/Missing 1 required arg:\s+user/)
  })
})
