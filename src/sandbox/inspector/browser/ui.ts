import htm from 'htm'
import {type ComponentChildren, createContext, h, type VNode} from 'preact'
import {useCallback, useContext, useEffect, useRef, useState} from 'preact/hooks'
import {INSPECTOR_PATH} from '../../../contract/inspector.js'
import {formatMoney, signedMoney, zonedTime} from '../../../contract/money/format.js'
import {LoadError} from './api.js'

/**
 * What every page is drawn with: preact's elements written as tagged templates (htm), so there is
 * no JSX step and every value is set as text or a property, never parsed as HTML.
 */
export const html = htm.bind(h) as (strings: TemplateStringsArray, ...values: unknown[]) => VNode

/** Bumped each time the live stream says the partner's data changed: pages read theirs again. */
export const Version = createContext(0)

/** Go to a page of the inspector without reloading. */
export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path)
  else history.pushState(null, '', path)
  dispatchEvent(new PopStateEvent('popstate'))
}

/** The address of a page of the inspector. */
export const page = (...parts: string[]) =>
  [INSPECTOR_PATH, ...parts.map((p) => encodeURIComponent(p))].join('/')

/** Where each kind of id has its page. */
const PAGES: Record<string, string> = {
  usr: 'users',
  wal: 'wallets',
  txn: 'transactions',
  evt: 'events',
  req: 'requests',
}

/** An id, linked to its page when it has one. */
export function Id({id}: {id: string | null | undefined}): VNode {
  if (id === null || id === undefined || id === '') return html`<span class="absent">—</span>`
  const kind = PAGES[id.slice(0, 3)]
  return kind === undefined || id[3] !== '_'
    ? html`<span class="id">${id}</span>`
    : html`<a class="id" href=${page(kind, id)}>${id}</a>`
}

/** A time the service recorded, in the reader's time zone (the CLI's format). */
export function Time({at}: {at: string | null | undefined}): VNode {
  if (at === null || at === undefined) return html`<span class="absent">—</span>`
  return html`<time datetime=${at}>${zonedTime(at, false)}</time>`
}

/** An amount in major units with its currency, as the CLI writes it. */
export function Money({
  amount,
  currency,
  signed,
}: {
  amount: unknown
  currency: unknown
  signed?: boolean
}): VNode {
  if ((typeof amount !== 'number' && typeof amount !== 'bigint') || typeof currency !== 'string') {
    return html`<span class="absent">—</span>`
  }
  const text = signed === true ? signedMoney(amount, currency) : formatMoney(amount, currency)
  const sign =
    signed === true && text.startsWith('-')
      ? 'debit'
      : signed === true && text.startsWith('+')
        ? 'credit'
        : ''
  return html`<span class=${`money ${sign}`}>${text}</span>`
}

/** A status, coloured by what it means. */
export function Status({value}: {value: string | null | undefined}): VNode {
  const word = (value ?? '').split(/[ ,]/, 1)[0] ?? ''
  const tone = /^(completed|active|succeeded|delivered|settled)$/.test(word)
    ? 'good'
    : /^(failed|frozen|closed|suspended|cancelled|reversed)$/.test(word)
      ? 'bad'
      : /^(pending|processing|retrying|pending_verification)$/.test(word)
        ? 'wait'
        : ''
  return html`<span class=${`status ${tone}`}>${value ?? '—'}</span>`
}

/** A column of a table: its heading and how a row fills its cell. */
export interface Column<T> {
  title: string
  cell: (row: T) => ComponentChildren
  className?: string
}

/**
 * A table of rows that reads as a table at 1280 pixels and as a card per row in a narrow window,
 * each cell then labelled with its heading (CSS reads the label from data-label).
 */
export function Table<T>(props: {
  caption: string
  columns: Column<T>[]
  rows: T[]
  rowKey: (row: T) => string
  empty: string
}): VNode {
  if (props.rows.length === 0) return html`<p class="empty">${props.empty}</p>`
  return html`<div class="table-wrap"><table>
    <caption class="visually-hidden">${props.caption}</caption>
    <thead><tr>${props.columns.map((c) => html`<th scope="col" class=${c.className}>${c.title}</th>`)}</tr></thead>
    <tbody>${props.rows.map(
      (row) =>
        html`<tr key=${props.rowKey(row)}>${props.columns.map(
          (c) => html`<td data-label=${c.title} class=${c.className}>${c.cell(row)}</td>`,
        )}</tr>`,
    )}</tbody>
  </table></div>`
}

/** Fields of one record, as a definition list. */
export function Fields({rows}: {rows: [string, ComponentChildren][]}): VNode {
  return html`<dl class="fields">${rows.map(([k, v]) => html`<div key=${k}><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`
}

/** What went wrong reading a page's data, in words. */
export function Problem({error}: {error: unknown}): VNode {
  const message = error instanceof LoadError ? `${error.message} (${error.code})` : String(error)
  return html`<p class="problem" role="alert">${message}</p>`
}

/** Load what a page shows, again whenever `deps` change or the partner's data changes. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): {data?: T; error?: unknown; reload: () => void} {
  const version = useContext(Version)
  const [state, setState] = useState<{data?: T; error?: unknown}>({})
  const [nonce, setNonce] = useState(0)
  const reload = useCallback(() => setNonce((n) => n + 1), [])
  useEffect(() => {
    let live = true
    load().then(
      (data) => live && setState({data}),
      (error: unknown) => live && setState((s) => ({...s, error})),
    )
    return () => {
      live = false
    }
  }, [...deps, version, nonce])
  return {...state, reload}
}

/** A page of a list and where the next starts, as every paged read answers. */
export interface Paged<T> {
  items: T[]
  next: string | null
}

/**
 * A list read page by page: the first page again whenever the partner's data changes (what is new
 * comes on top, what changed is updated in place), the next ones on "Show more".
 */
export function usePaged<T>(
  load: (cursor: string | undefined) => Promise<Paged<T>>,
  key: (item: T) => string,
  deps: unknown[],
): {items: T[]; more: (() => void) | undefined; loading: boolean; error?: unknown} {
  const version = useContext(Version)
  const [state, setState] = useState<PagedState<T>>({items: [], firstCount: 0, next: null, loading: true})
  const shown = useRef<unknown[] | undefined>(undefined)
  useEffect(() => {
    // The same list read again keeps the pages shown below its first; another list starts anew.
    const same = shown.current !== undefined && deps.every((d, i) => d === shown.current![i])
    shown.current = deps
    let live = true
    load(undefined).then(
      (p) =>
        live &&
        setState((s) =>
          same
            ? mergeFirst(s, p, key)
            : {items: p.items, firstCount: p.items.length, next: p.next, loading: false},
        ),
      (error: unknown) => live && setState((s) => ({...s, error, loading: false})),
    )
    return () => {
      live = false
    }
  }, [...deps, version])
  const more =
    state.next === null
      ? undefined
      : () => {
          setState((s) => ({...s, loading: true}))
          load(state.next ?? undefined).then(
            (p) =>
              setState((s) => {
                const seen = new Set(s.items.map(key))
                return {
                  ...s,
                  items: [...s.items, ...p.items.filter((i) => !seen.has(key(i)))],
                  next: p.next,
                  loading: false,
                }
              }),
            (error: unknown) => setState((s) => ({...s, error, loading: false})),
          )
        }
  return {items: state.items, more, loading: state.loading, error: state.error}
}

interface PagedState<T> {
  items: T[]
  /** How many of `items` the first page gave: the rest came with "Show more". */
  firstCount: number
  next: string | null
  loading: boolean
  error?: unknown
}

/** A first page read again, over the pages shown below it: new items on top, changed ones updated. */
function mergeFirst<T>(s: PagedState<T>, p: Paged<T>, key: (item: T) => string): PagedState<T> {
  const later = s.items.slice(s.firstCount)
  if (later.length === 0) return {items: p.items, firstCount: p.items.length, next: p.next, loading: false}
  const onTop = new Set(p.items.map(key))
  return {
    items: [...p.items, ...later.filter((i) => !onTop.has(key(i)))],
    firstCount: p.items.length,
    next: s.next,
    loading: false,
  }
}

/** The "Show more" button of a paged list. */
export function More({more, loading}: {more: (() => void) | undefined; loading: boolean}): VNode | null {
  if (more === undefined) return null
  return html`<p class="more"><button type="button" onClick=${more} disabled=${loading}>${loading ? 'Loading…' : 'Show more'}</button></p>`
}
