import {signedMoney, type WalletView, zonedTime} from '../../contract/index.js'
import type {Missing, TimelineLine} from '../../core/index.js'
import {ABSENT, known, money, text} from '../rendering/field-readers.js'
import type {Column} from '../rendering/output.js'
import {paint, STATUS_STYLES} from '../rendering/terminal.js'

/**
 * How a customer's story looks to a person (`users inspect`, `wallets inspect`): the wallets and
 * BNPL payments above, then the timeline, one line per thing that happened, in the time zone of
 * the person at the terminal (or UTC). Times and signed amounts are the contract's (money-format.ts),
 * which the browser inspector formats with too.
 */

const statusCell = (s: string | undefined) => {
  if (s === undefined) return ''
  const word = s.split(/[ ,]/, 1)[0]!
  const style =
    STATUS_STYLES[word] ?? (word === 'delivered' ? 'green' : word === 'retrying' ? 'yellow' : 'white')
  return paint(style, s)
}

/**
 * The timeline's columns: when, what, how much, the balance after and how it ended first, then how
 * the webhooks about it fared; at 80 columns those, the other side and the id go on a line under
 * their row.
 */
export function timelineColumns(utc: boolean): Column<TimelineLine>[] {
  return [
    {header: 'TIME', get: (l) => zonedTime(l.at, utc), kind: 'time'},
    {header: 'WHAT', get: (l) => l.what},
    {header: 'AMOUNT', get: (l) => signedMoney(l.amount, l.currency), kind: 'amount'},
    {
      header: 'BALANCE',
      get: (l) => (l.balanceAfter === undefined ? '' : money(l.balanceAfter.total, l.balanceAfter.currency)),
      kind: 'amount',
    },
    {header: 'STATUS', get: (l) => statusCell(l.status)},
    {header: 'WEBHOOK', get: (l) => statusCell(l.webhook)},
    {header: 'OTHER SIDE', get: (l) => l.otherSide ?? ''},
    {header: 'ID', get: (l) => l.id, kind: 'id'},
  ]
}

/** Each wallet with its balance. */
export const inspectWalletColumns: Column<WalletView>[] = [
  {header: 'WALLET', get: (w) => w.id, kind: 'id'},
  {header: 'STATUS', get: (w) => statusCell(text(w.status))},
  {header: 'AVAILABLE', get: (w) => money(w.balance.available, w.currency), kind: 'amount'},
  {header: 'PENDING', get: (w) => money(w.balance.pending, w.currency), kind: 'amount'},
  {header: 'TOTAL', get: (w) => paint('bold', money(w.balance.total, w.currency)), kind: 'amount'},
]

/** A BNPL payment, in a row: whatever shape it came in (the interface shows none). */
export const inspectBnplColumns: Column<Record<string, unknown>>[] = [
  {header: 'BNPL PAYMENT', get: (p) => known(p.id), kind: 'id'},
  {header: 'MERCHANT', get: (p) => text(p.merchantName) ?? ABSENT},
  {header: 'AMOUNT', get: (p) => money(p.amount, p.currency), kind: 'amount'},
  {
    header: 'PAID',
    get: (p) =>
      p.paidInstallments === undefined
        ? ABSENT
        : `${text(p.paidInstallments)} of ${text(p.installments) ?? '?'}`,
  },
  {header: 'STATUS', get: (p) => statusCell(text(p.status))},
]

/** What the service did not give, and why, in one line. */
export function missingLine(missing: Missing[]): string | undefined {
  if (missing.length === 0) return undefined
  const byReason = new Map<string, string[]>()
  for (const m of missing) byReason.set(m.reason, [...(byReason.get(m.reason) ?? []), m.what])
  const parts = [...byReason].map(([reason, what]) => `${what.join(', ')}: ${reason}`)
  return `Not shown: ${parts.join('; ')}.`
}

/** The window the timeline covers, in the terminal's time zone. */
export function windowLine(
  window: {since: string; until: string | null; clock: 'service' | 'machine'},
  utc: boolean,
  oldestFirst: boolean,
): string {
  const until = window.until === null ? 'now' : zonedTime(window.until, utc)
  const clock = window.clock === 'service' ? "the service's clock" : "this machine's clock"
  return `Timeline, ${oldestFirst ? 'oldest' : 'newest'} first: ${zonedTime(window.since, utc)} to ${until} (${clock})`
}
