import type {VNode} from 'preact'
import {read} from './api.js'
import {
  type EventSummary,
  type LedgerEntry,
  paged,
  type TransactionRecord,
  type WalletRecord,
} from './records.js'
import {
  type Column,
  Fields,
  html,
  Id,
  Money,
  More,
  Problem,
  Status,
  Table,
  Time,
  useLoad,
  usePaged,
} from './ui.js'

/** The transactions pages, and a wallet's page with its ledger. */

const PAGE = 50

const METHODS: Record<string, string> = {ach: 'ACH', apple_pay: 'Apple Pay', google_pay: 'Google Pay'}

/** What a transaction is, in a few words: `card deposit`, `transfer out`, `refund`. */
export function kindOf(t: TransactionRecord): string {
  const method = t.method === undefined ? '' : (METHODS[t.method] ?? t.method)
  if (t.type === 'deposit' || t.type === 'withdrawal') return `${method} ${t.type}`.trim()
  return t.type.replace('_', ' ')
}

/**
 * Where a transaction's money went: a wallet, or for a withdrawal and for a refund that went back
 * to the card it came from (a card deposit's refund), the payment method the record names.
 */
function destinationOf(t: TransactionRecord): string | undefined {
  if (t.destinationWalletId !== undefined) return t.destinationWalletId
  return t.type === 'withdrawal' || t.type === 'refund' ? t.paymentMethodId : undefined
}

const statusOf = (t: TransactionRecord) =>
  t.status === 'failed' && t.failureReason !== undefined
    ? `failed ${t.failureReason.split(':', 1)[0]}`
    : t.status

export const transactionColumns: Column<TransactionRecord>[] = [
  {title: 'Time', cell: (t) => html`<${Time} at=${t.createdAt} />`},
  {title: 'What', cell: (t) => kindOf(t)},
  {
    title: 'Amount',
    cell: (t) => html`<${Money} amount=${t.amount} currency=${t.currency} />`,
    className: 'num',
  },
  {title: 'Status', cell: (t) => html`<${Status} value=${statusOf(t)} />`},
  {
    title: 'From',
    cell: (t) =>
      html`<${Id} id=${t.sourceWalletId ?? (t.type === 'deposit' ? t.paymentMethodId : undefined)} />`,
  },
  {title: 'To', cell: (t) => html`<${Id} id=${destinationOf(t)} />`},
  {title: 'ID', cell: (t) => html`<${Id} id=${t.id} />`},
]

/** Every transaction of the partner, newest first, a page at a time. */
export function TransactionsPage(): VNode {
  const list = usePaged(
    async (cursor) =>
      paged<TransactionRecord>(await read('listTransactions', {limit: PAGE, cursor}), 'transactions'),
    (t) => t.id,
    [],
  )
  return html`<section>
    <h1 tabindex="-1">Transactions</h1>
    ${list.error === undefined ? null : html`<${Problem} error=${list.error} />`}
    ${
      list.loading && list.items.length === 0
        ? html`<p class="loading">Loading…</p>`
        : html`<${Table} caption="Transactions, newest first" columns=${transactionColumns} rows=${list.items} rowKey=${(t: TransactionRecord) => t.id} empty="No transactions yet." />`
    }
    <${More} more=${list.more} loading=${list.loading} />
  </section>`
}

const eventColumns: Column<EventSummary>[] = [
  {title: 'Time', cell: (e) => html`<${Time} at=${e.timestamp} />`},
  {title: 'Event', cell: (e) => e.event},
  {title: 'Deliveries', cell: (e) => html`<${Status} value=${deliveryWords(e)} />`},
  {title: 'ID', cell: (e) => html`<${Id} id=${e.id} />`},
]

/** How an event's deliveries fared, in a few words. */
export function deliveryWords(e: EventSummary): string {
  const d = e.deliveries
  if (d.total === 0) return 'no webhook'
  if (d.pending > 0) return `pending (${d.succeeded}/${d.total} delivered)`
  return d.failed > 0 ? `failed (${d.succeeded}/${d.total} delivered)` : `delivered (${d.total})`
}

export {eventColumns}

/** One transaction: its fields, and the events about it. */
export function TransactionPage({id}: {id: string}): VNode {
  const txn = useLoad(() => read<TransactionRecord>('getTransaction', {id}), [id])
  const events = useLoad(
    async () => (await read<{events: EventSummary[]}>('listEvents', {transactionId: id, limit: 100})).events,
    [id],
  )
  if (txn.error !== undefined)
    return html`<section><h1 tabindex="-1">Transaction ${id}</h1><${Problem} error=${txn.error} /></section>`
  const t = txn.data
  return html`<section>
    <h1 tabindex="-1">Transaction <span class="id">${id}</span></h1>
    ${
      t === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Fields} rows=${[
            ['What', kindOf(t)],
            ['Status', html`<${Status} value=${statusOf(t)} />`],
            ['Amount', html`<${Money} amount=${t.amount} currency=${t.currency} />`],
            ['Fee', html`<${Money} amount=${t.fee} currency=${t.currency} />`],
            ['Net amount', html`<${Money} amount=${t.netAmount} currency=${t.currency} />`],
            ['From', html`<${Id} id=${t.sourceWalletId} />`],
            ['To', html`<${Id} id=${destinationOf(t)} />`],
            ['Payment method', t.paymentMethodId ?? '—'],
            ['Other leg', html`<${Id} id=${t.pairedTransactionId} />`],
            ['Refund of', html`<${Id} id=${t.originalTransactionId} />`],
            ['Created', html`<${Time} at=${t.createdAt} />`],
            ['Completed', html`<${Time} at=${t.completedAt} />`],
            ['Estimated completion', html`<${Time} at=${t.estimatedCompletion} />`],
            ['Failure', t.failureReason ?? '—'],
            ['Description', t.description ?? '—'],
          ]} />
        ${t.metadata !== undefined && Object.keys(t.metadata).length > 0 ? html`<h2>Metadata</h2><pre class="json">${JSON.stringify(t.metadata, null, 2)}</pre>` : null}`
    }
    <h2>Events</h2>
    ${
      events.data === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Table} caption="Events about this transaction" columns=${eventColumns} rows=${events.data} rowKey=${(e: EventSummary) => e.id} empty="No events about it." />`
    }
  </section>`
}

const ledgerColumns: Column<LedgerEntry>[] = [
  {title: 'Time', cell: (e) => html`<${Time} at=${e.createdAt} />`},
  {title: 'Transaction', cell: (e) => html`<${Id} id=${e.transactionId} />`},
  {title: 'Bucket', cell: (e) => e.bucket},
  {
    title: 'Amount',
    cell: (e) => html`<${Money} amount=${e.amount} currency=${e.currency} signed=${true} />`,
    className: 'num',
  },
  {
    title: 'Balance after',
    cell: (e) => html`<${Money} amount=${e.balanceAfter.total} currency=${e.currency} />`,
    className: 'num',
  },
]

/** One wallet: its balance, limits and owner, and its ledger, newest first. */
export function WalletPage({id}: {id: string}): VNode {
  const wallet = useLoad(() => read<WalletRecord>('getWallet', {id}), [id])
  const ledger = usePaged(
    async (cursor) =>
      paged<LedgerEntry>(await read('listLedgerEntries', {id, limit: PAGE, cursor}), 'entries'),
    (e) => `${e.transactionId} ${e.bucket} ${e.createdAt} ${e.amount}`,
    [id],
  )
  if (wallet.error !== undefined)
    return html`<section><h1 tabindex="-1">Wallet ${id}</h1><${Problem} error=${wallet.error} /></section>`
  const w = wallet.data
  return html`<section>
    <h1 tabindex="-1">Wallet <span class="id">${id}</span></h1>
    ${
      w === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Fields} rows=${[
            ['Owner', html`<${Id} id=${w.userId} />`],
            ['Label', w.label ?? '—'],
            ['Status', html`<${Status} value=${w.status} />`],
            ['Available', html`<${Money} amount=${w.balance.available} currency=${w.currency} />`],
            ['Pending', html`<${Money} amount=${w.balance.pending} currency=${w.currency} />`],
            ['Reserved', html`<${Money} amount=${w.balance.reserved} currency=${w.currency} />`],
            ['Total', html`<strong><${Money} amount=${w.balance.total} currency=${w.currency} /></strong>`],
            ['Created', html`<${Time} at=${w.createdAt} />`],
          ]} />`
    }
    <h2>Ledger</h2>
    <${Table} caption="Ledger entries, newest first" columns=${ledgerColumns} rows=${ledger.items} rowKey=${(e: LedgerEntry) => `${e.transactionId} ${e.bucket} ${e.createdAt} ${e.amount}`} empty=${ledger.loading ? 'Loading…' : 'No ledger entries.'} />
    <${More} more=${ledger.more} loading=${ledger.loading} />
  </section>`
}
