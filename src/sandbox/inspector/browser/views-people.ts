import type {VNode} from 'preact'
import {read, timeline} from './api.js'
import {paged, type TimelineLine, type UserRecord, type WalletRecord} from './records.js'
import {
  type Column,
  Fields,
  html,
  Id,
  Money,
  More,
  navigate,
  Problem,
  page,
  Status,
  Table,
  Time,
  useLoad,
  usePaged,
} from './ui.js'

/** The users pages: every user, and one user's wallets and timeline. */

const userColumns: Column<UserRecord>[] = [
  {title: 'Name', cell: (u) => `${u.first_name} ${u.last_name}`},
  {title: 'Email', cell: (u) => u.email},
  {title: 'External id', cell: (u) => u.external_id ?? '—'},
  {title: 'Created', cell: (u) => html`<${Time} at=${u.created_at} />`},
  {title: 'ID', cell: (u) => html`<${Id} id=${u.id} />`},
]

/** Every user of the partner, in the order they came, a page at a time. */
export function UsersPage(): VNode {
  const list = usePaged(
    async (cursor) => paged<UserRecord>(await read('listUsers', {limit: 50, cursor}), 'users'),
    (u) => u.id,
    [],
  )
  return html`<section>
    <h1 tabindex="-1">Users</h1>
    ${list.error === undefined ? null : html`<${Problem} error=${list.error} />`}
    <${Table} caption="Users" columns=${userColumns} rows=${list.items} rowKey=${(u: UserRecord) => u.id} empty=${list.loading ? 'Loading…' : 'No users yet.'} />
    <${More} more=${list.more} loading=${list.loading} />
  </section>`
}

const walletColumns: Column<WalletRecord>[] = [
  {title: 'Wallet', cell: (w) => html`<${Id} id=${w.id} />`},
  {title: 'Status', cell: (w) => html`<${Status} value=${w.status} />`},
  {
    title: 'Available',
    cell: (w) => html`<${Money} amount=${w.balance.available} currency=${w.currency} />`,
    className: 'num',
  },
  {
    title: 'Pending',
    cell: (w) => html`<${Money} amount=${w.balance.pending} currency=${w.currency} />`,
    className: 'num',
  },
  {
    title: 'Total',
    cell: (w) => html`<strong><${Money} amount=${w.balance.total} currency=${w.currency} /></strong>`,
    className: 'num',
  },
]

const timelineColumns: Column<TimelineLine>[] = [
  {title: 'Time', cell: (l) => html`<${Time} at=${l.at} />`},
  {title: 'What', cell: (l) => l.what},
  {
    title: 'Amount',
    cell: (l) =>
      l.source === 'event' ? '' : html`<${Money} amount=${l.amount} currency=${l.currency} signed=${true} />`,
    className: 'num',
  },
  {
    title: 'Balance',
    cell: (l) =>
      l.balanceAfter === undefined
        ? ''
        : html`<${Money} amount=${l.balanceAfter.total} currency=${l.balanceAfter.currency} />`,
    className: 'num',
  },
  {
    // How the webhooks about the line fared goes under its status, where a column has no room at
    // 1280 pixels (the CLI's WEBHOOK column).
    title: 'Status',
    cell: (l) =>
      html`<span><${Status} value=${l.status} />${
        l.webhook === undefined
          ? null
          : html`<span class="webhook">webhook <${Status} value=${l.webhook} /></span>`
      }</span>`,
  },
  {title: 'Other side', cell: (l) => html`<${Id} id=${l.otherSide} />`},
  {title: 'ID', cell: (l) => html`<${Id} id=${l.id} />`},
]

// A transaction may be several lines (an ACH payment when it came and when it was returned), one
// per wallet and moment.
const lineKey = (l: TimelineLine) => `${l.source} ${l.id} ${l.walletId ?? ''} ${l.at}`

/**
 * One user: who they are, their wallets with balances, and their timeline, newest first; with
 * `events` (`?events=1`, a switch on the page) the webhook events as lines of their own.
 */
export function UserPage({id, events}: {id: string; events: boolean}): VNode {
  const user = useLoad(() => read<UserRecord>('getUser', {id}), [id])
  const wallets = useLoad(
    async () => (await read<{wallets: WalletRecord[]}>('listWallets', {userId: id, limit: 100})).wallets,
    [id],
  )
  const story = usePaged(
    async (cursor) => {
      const answer = await timeline(id, cursor, events)
      return {items: answer.lines, next: answer.nextCursor}
    },
    lineKey,
    [id, events],
  )
  const showEvents = (e: Event) =>
    navigate(`${page('users', id)}${(e.target as HTMLInputElement).checked ? '?events=1' : ''}`, true)
  if (user.error !== undefined)
    return html`<section><h1 tabindex="-1">User ${id}</h1><${Problem} error=${user.error} /></section>`
  const u = user.data
  return html`<section>
    <h1 tabindex="-1">${u === undefined ? 'User' : `${u.first_name} ${u.last_name}`}</h1>
    ${
      u === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Fields} rows=${[
            ['ID', html`<span class="id">${u.id}</span>`],
            ['Email', u.email],
            ['External id', u.external_id ?? '—'],
            ['Created', html`<${Time} at=${u.created_at} />`],
          ]} />`
    }
    <h2>Wallets</h2>
    ${
      wallets.data === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Table} caption="Wallets with balances" columns=${walletColumns} rows=${wallets.data} rowKey=${(w: WalletRecord) => w.id} empty="No wallets." />`
    }
    <h2>Timeline</h2>
    <p class="hint">What moved each wallet (net of fees) with its balance after, what tried to, and how the webhooks about it fared, newest first: the lines of <code>payctl users inspect</code>.</p>
    <label class="inline"><input type="checkbox" checked=${events} onChange=${showEvents} /><span>Show the webhook events as lines of their own (<code>--events</code>)</span></label>
    ${story.error === undefined ? null : html`<${Problem} error=${story.error} />`}
    <${Table} caption="Timeline, newest first" columns=${timelineColumns} rows=${story.items} rowKey=${lineKey} empty=${story.loading ? 'Loading…' : 'Nothing has happened yet.'} />
    <${More} more=${story.more} loading=${story.loading} />
  </section>`
}
