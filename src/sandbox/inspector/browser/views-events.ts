import type {VNode} from 'preact'
import {useEffect, useState} from 'preact/hooks'
import {eventAmounts} from '../../../contract/events/amounts.js'
import {LoadError, read, resend} from './api.js'
import {type Attempt, type Delivery, type EventDetail, type EventSummary, paged} from './records.js'
import {
  type Column,
  Fields,
  html,
  Money,
  More,
  Problem,
  Status,
  Table,
  Time,
  useLoad,
  usePaged,
} from './ui.js'
import {eventColumns} from './views-money.js'

/** The events pages: every event, and one event with each delivery, attempt by attempt. */

/** Every event of the partner, newest first. */
export function EventsPage(): VNode {
  const list = usePaged(
    async (cursor) => paged<EventSummary>(await read('listEvents', {limit: 50, cursor}), 'events'),
    (e) => e.id,
    [],
  )
  return html`<section>
    <h1 tabindex="-1">Events</h1>
    ${list.error === undefined ? null : html`<${Problem} error=${list.error} />`}
    <${Table} caption="Events, newest first" columns=${eventColumns} rows=${list.items} rowKey=${(e: EventSummary) => e.id} empty=${list.loading ? 'Loading…' : 'No events yet.'} />
    <${More} more=${list.more} loading=${list.loading} />
  </section>`
}

const attemptColumns: Column<Attempt & {n: number}>[] = [
  {title: 'Try', cell: (a) => String(a.n)},
  {title: 'Time', cell: (a) => html`<${Time} at=${a.at} />`},
  {
    title: 'Answer',
    cell: (a) =>
      html`<${Status} value=${a.status === null ? 'no answer' : a.status >= 200 && a.status < 300 ? `delivered ${a.status}` : `failed ${a.status}`} />`,
  },
  {
    title: 'Took',
    cell: (a) => (a.durationMs === undefined || a.durationMs === null ? '—' : `${a.durationMs} ms`),
    className: 'num',
  },
  {title: 'Error', cell: (a) => a.error ?? '—'},
]

function DeliveryCard({d}: {d: Delivery}): VNode {
  const rows = d.attemptLog.map((a, i) => ({...a, n: i + 1}))
  return html`<article class="delivery" aria-label=${`Delivery ${d.id}`}>
    <h3><span class="id">${d.id}</span> <${Status} value=${d.status} /></h3>
    <${Fields} rows=${[
      [
        'To',
        d.url ??
          (d.listenSessionId === null || d.listenSessionId === undefined
            ? '—'
            : `listen session ${d.listenSessionId}`),
      ],
      ['Attempts', String(d.attempts)],
      ['Next attempt', html`<${Time} at=${d.nextAttemptAt} />`],
    ]} />
    <${Table} caption=${`Attempts of ${d.id}`} columns=${attemptColumns} rows=${rows} rowKey=${(a: {n: number}) => String(a.n)} empty="No attempt yet." />
  </article>`
}

/** Resend the event to every registration that selects it, and say what came of it. */
function ResendButton({id, onDone}: {id: string; onDone: () => void}): VNode {
  const [state, setState] = useState<{busy: boolean; said?: string}>({busy: false})
  const click = async () => {
    setState({busy: true})
    try {
      const result = await resend(id)
      const n = result.deliveries.length
      setState({
        busy: false,
        said:
          n === 0
            ? 'No registration selects this event: nothing was sent.'
            : `Resent: ${n} new ${n === 1 ? 'delivery' : 'deliveries'}.`,
      })
    } catch (err) {
      setState({busy: false, said: err instanceof LoadError ? `Not resent: ${err.message}` : String(err)})
    }
    onDone()
  }
  return html`<p class="actions">
    <button type="button" class="primary" onClick=${click} disabled=${state.busy}>${state.busy ? 'Resending…' : 'Resend'}</button>
    <span role="status" class="said">${state.said ?? ''}</span>
  </p>`
}

/** One event: what it said, and every delivery with each attempt; a resend button. */
export function EventPage({id}: {id: string}): VNode {
  const event = useLoad(() => read<EventDetail>('getEvent', {id}), [id])
  const pending = event.data?.deliveries.some((d) => d.status === 'pending') ?? false
  // A delivery under way is watched until it ends: its attempt is no change the stream tells.
  useEffect(() => {
    if (!pending) return
    const timer = setInterval(event.reload, 1_000)
    return () => clearInterval(timer)
  }, [pending, event.reload])
  if (event.error !== undefined && event.data === undefined)
    return html`<section><h1 tabindex="-1">Event ${id}</h1><${Problem} error=${event.error} /></section>`
  const e = event.data
  return html`<section>
    <h1 tabindex="-1">${e === undefined ? 'Event' : e.event} <span class="id">${id}</span></h1>
    ${
      e === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Fields} rows=${[
            ['Recorded', html`<${Time} at=${e.timestamp} />`],
            ...eventAmounts(e.event, e.data).map(({label, amount, currency}) => [
              label,
              html`<${Money} amount=${amount} currency=${currency} />`,
            ]),
            [
              'Deliveries',
              `${e.deliveryCounts.succeeded} delivered, ${e.deliveryCounts.pending} pending, ${e.deliveryCounts.failed} failed, of ${e.deliveryCounts.total}`,
            ],
          ]} />
        <${ResendButton} id=${id} onDone=${event.reload} />
        <h2>Data</h2>
        <pre class="json">${JSON.stringify(e.data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}</pre>
        <h2>Deliveries</h2>
        ${e.deliveries.length === 0 ? html`<p class="empty">No delivery: no webhook or listen session selected this event.</p>` : e.deliveries.map((d) => html`<${DeliveryCard} key=${d.id} d=${d} />`)}`
    }
  </section>`
}
