import type {VNode} from 'preact'
import {useEffect, useState} from 'preact/hooks'
import type {SearchResult} from '../../../contract/inspector.js'
import {zonedTime} from '../../../contract/money/format.js'
import {advance, LoadError, read, search} from './api.js'
import type {ClockReading, RequestEntry} from './records.js'
import {type Column, Fields, html, Id, navigate, Problem, page, Status, Table, Time, useLoad} from './ui.js'

/** The sandbox's own pages: the request log, the clock, and where a search leads. */

const requestColumns: Column<RequestEntry>[] = [
  {title: 'Time', cell: (r) => html`<${Time} at=${r.time} />`},
  {title: 'Request', cell: (r) => `${r.method} ${r.path}`},
  {
    title: 'Status',
    cell: (r) => html`<${Status} value=${`${r.status}${r.errorCode === null ? '' : ` ${r.errorCode}`}`} />`,
  },
  {title: 'Took', cell: (r) => `${r.durationMs} ms`, className: 'num'},
  {title: 'ID', cell: (r) => html`<${Id} id=${r.requestId} />`},
]

const FILTERS = [
  ['', 'every answer'],
  ['4xx,5xx', 'errors (4xx, 5xx)'],
  ['5xx', 'server errors (5xx)'],
  ['429', 'rate limited (429)'],
] as const

/** The partner's newest 100 requests, newest first, narrowed to a class of answers. */
export function RequestsPage(): VNode {
  const [status, setStatus] = useState('')
  const log = useLoad(
    async () =>
      (await read<{entries: RequestEntry[]}>('listRequestLog', {limit: 100, status})).entries.reverse(),
    [status],
  )
  return html`<section>
    <h1 tabindex="-1">Requests</h1>
    <p class="hint">What the sandbox answered this partner's API calls, newest first (the inspector's own reads are not in it).</p>
    <label class="inline">Show <select value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
      ${FILTERS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
    </select></label>
    ${log.error === undefined ? null : html`<${Problem} error=${log.error} />`}
    ${
      log.data === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Table} caption="Requests, newest first" columns=${requestColumns} rows=${log.data} rowKey=${(r: RequestEntry) => `${r.requestId} ${r.time}`} empty="No requests." />`
    }
  </section>`
}

/** One request of the log: what it asked, and what it got. */
export function RequestPage({id}: {id: string}): VNode {
  const entry = useLoad(
    async () => (await read<{entries: RequestEntry[]}>('listRequestLog', {request: id})).entries[0],
    [id],
  )
  const r = entry.data
  return html`<section>
    <h1 tabindex="-1">Request <span class="id">${id}</span></h1>
    ${
      entry.error !== undefined
        ? html`<${Problem} error=${entry.error} />`
        : r === undefined
          ? html`<p class="loading">Loading…</p>`
          : html`<${Fields} rows=${[
              ['Time', html`<${Time} at=${r.time} />`],
              ['Request', `${r.method} ${r.path}`],
              ['Status', html`<${Status} value=${String(r.status)} />`],
              ['Error code', r.errorCode ?? '—'],
              ['Took', `${r.durationMs} ms`],
              ['Idempotency key', r.idempotencyKey ?? '—'],
              ['Replayed', r.replayed ? 'yes: the stored answer of an earlier request with this key' : 'no'],
              ['Fault injected', r.fault ?? '—'],
            ]} />`
    }
  </section>`
}

const UNITS = {minutes: 60, hours: 3600, days: 86_400} as const

/** The partner's clock, and a control that moves it forward (what falls due then runs). */
export function ClockPage(): VNode {
  const clock = useLoad(() => read<ClockReading>('sandboxClock'), [])
  const [form, setForm] = useState<{count: string; unit: keyof typeof UNITS; said?: string; busy?: boolean}>({
    count: '1',
    unit: 'days',
  })
  const submit = async (e: Event) => {
    e.preventDefault()
    const count = Number(form.count)
    if (!Number.isInteger(count) || count < 1)
      return setForm({...form, said: 'Give a whole number of 1 or more'})
    setForm({...form, busy: true, said: undefined})
    try {
      const r = await advance(count * UNITS[form.unit])
      setForm({
        ...form,
        busy: false,
        said: `Now ${zonedTime(r.now, false)}; ${r.settled} ${r.settled === 1 ? 'record' : 'records'} fell due.`,
      })
    } catch (err) {
      setForm({
        ...form,
        busy: false,
        said: err instanceof LoadError ? `Not moved: ${err.message}` : String(err),
      })
    }
    clock.reload()
  }
  const c = clock.data
  return html`<section>
    <h1 tabindex="-1">Clock</h1>
    ${clock.error === undefined ? null : html`<${Problem} error=${clock.error} />`}
    ${
      c === undefined
        ? html`<p class="loading">Loading…</p>`
        : html`<${Fields} rows=${[
            ['Now', html`<${Time} at=${c.now} />`],
            ['Ahead of real time', `${c.offsetSeconds} s`],
            ['Frozen', c.frozen ? 'yes' : 'no'],
          ]} />`
    }
    <form class="advance" onSubmit=${submit}>
      <h2>Advance</h2>
      <label for="advance-count">Move this partner's clock forward by</label>
      <div class="row">
        <input id="advance-count" inputmode="numeric" value=${form.count} onInput=${(e: Event) => setForm({...form, count: (e.target as HTMLInputElement).value})} />
        <select aria-label="Unit" value=${form.unit} onChange=${(e: Event) => setForm({...form, unit: (e.target as HTMLSelectElement).value as keyof typeof UNITS})}>
          ${Object.keys(UNITS).map((u) => html`<option value=${u}>${u}</option>`)}
        </select>
        <button type="submit" class="primary" disabled=${form.busy === true}>Advance</button>
      </div>
      <p role="status" class="said">${form.said ?? ''}</p>
    </form>
  </section>`
}

/** Where a search leads: straight to the one record it names, else what it found. */
export function SearchPage({q}: {q: string}): VNode {
  const [result, setResult] = useState<SearchResult | {kind: 'error'; error: unknown} | undefined>()
  useEffect(() => {
    setResult(undefined)
    search(q).then(
      (r) => (r.kind === 'found' ? navigate(r.path, true) : setResult(r)),
      (error: unknown) => setResult({kind: 'error', error}),
    )
  }, [q])
  return html`<section>
    <h1 tabindex="-1">Search: ${q}</h1>
    ${
      result === undefined
        ? html`<p class="loading">Searching…</p>`
        : result.kind === 'error'
          ? html`<${Problem} error=${result.error} />`
          : result.kind === 'none'
            ? html`<p class="empty" role="status">${result.message}</p>`
            : result.kind === 'users'
              ? html`<ul class="results">${result.users.map((u) => html`<li key=${u.id}><a href=${page('users', u.id)}>${u.name || u.email}</a> ${u.email} <span class="id">${u.id}</span></li>`)}</ul>`
              : null
    }
  </section>`
}
