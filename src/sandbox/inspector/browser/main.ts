import {render, type VNode} from 'preact'
import {useEffect, useRef, useState} from 'preact/hooks'
import {INSPECTOR_PATH} from '../../../contract/inspector.js'
import {listen, session, signOut} from './api.js'
import {html, navigate, Version} from './ui.js'
import {EventPage, EventsPage} from './views-events.js'
import {TransactionPage, TransactionsPage, WalletPage} from './views-money.js'
import {UserPage, UsersPage} from './views-people.js'
import {ClockPage, RequestPage, RequestsPage, SearchPage} from './views-sandbox.js'

/**
 * The inspector in the browser: a header with the partner, the sections and the search box, and
 * the page of the address, which can be pasted into a ticket. Pages read their data again when
 * the live stream says the partner's data changed.
 */

const NAV = [
  ['transactions', 'Transactions'],
  ['users', 'Users'],
  ['events', 'Events'],
  ['requests', 'Requests'],
  ['clock', 'Clock'],
] as const

/** The page of an address below INSPECTOR_PATH. */
function pageOf(path: string, query: URLSearchParams): VNode {
  const [section = '', id] = path
    .slice(INSPECTOR_PATH.length)
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent)
  const one = (kind: (p: {id: string}) => VNode) => html`<${kind} id=${id} key=${id} />`
  switch (section) {
    case '':
    case 'transactions':
      return id === undefined ? html`<${TransactionsPage} />` : one(TransactionPage)
    case 'users':
      return id === undefined
        ? html`<${UsersPage} />`
        : html`<${UserPage} id=${id} events=${query.get('events') === '1'} key=${id} />`
    case 'wallets':
      return id === undefined ? html`<${UsersPage} />` : one(WalletPage)
    case 'events':
      return id === undefined ? html`<${EventsPage} />` : one(EventPage)
    case 'requests':
      return id === undefined ? html`<${RequestsPage} />` : one(RequestPage)
    case 'clock':
      return html`<${ClockPage} />`
    case 'search':
      return html`<${SearchPage} q=${query.get('q') ?? ''} key=${query.get('q') ?? ''} />`
    default:
      return html`<section><h1 tabindex="-1">Not found</h1><p>The inspector has no page at ${path}.</p></section>`
  }
}

/** What the search box takes, said in full where its placeholder has no room (its label, its tooltip). */
const SEARCH_HELP = 'Find an id (usr_, wal_, txn_, evt_, req_), or a user by a part of their email or name'

function SearchBox(): VNode {
  const input = useRef<HTMLInputElement>(null)
  // "/" goes to the search box, as on most consoles, unless one is typing already.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing =
        e.target instanceof HTMLInputElement ||
        e.target instanceof HTMLSelectElement ||
        e.target instanceof HTMLTextAreaElement
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault()
        input.current?.focus()
      }
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [])
  const submit = (e: Event) => {
    e.preventDefault()
    const q = input.current?.value.trim() ?? ''
    if (q !== '') navigate(`${INSPECTOR_PATH}/search?q=${encodeURIComponent(q)}`)
  }
  return html`<form role="search" class="search" onSubmit=${submit}>
    <label for="search" class="visually-hidden">${SEARCH_HELP}</label>
    <input id="search" ref=${input} type="search" name="q" placeholder="Id, email or name  ( / )" title=${SEARCH_HELP} autocomplete="off" />
    <button type="submit">Find</button>
  </form>`
}

function Header({section, live}: {section: string; live: boolean}): VNode {
  return html`<header class="top">
    <a class="skip" href="#main">Skip to the page</a>
    <div class="brand"><a href=${INSPECTOR_PATH}>Sandbox inspector</a>
      <span class="partner" title=${session.partnerId}>${session.partner}</span>
      <span class=${`live ${live ? 'on' : 'off'}`} role="status" title=${live ? 'This page updates itself as the sandbox changes' : 'Reconnecting to the sandbox to update this page'}>${live ? 'auto-updating' : 'reconnecting…'}</span>
    </div>
    <nav aria-label="Sections"><ul>${NAV.map(
      ([path, label]) =>
        html`<li><a href=${`${INSPECTOR_PATH}/${path}`} aria-current=${section === path ? 'page' : undefined}>${label}</a></li>`,
    )}</ul></nav>
    <${SearchBox} />
    <button type="button" class="sign-out" onClick=${() => void signOut()}>Sign out</button>
  </header>`
}

function App(): VNode {
  const [where, setWhere] = useState(() => ({path: location.pathname, query: location.search}))
  const [version, setVersion] = useState(0)
  const [live, setLive] = useState(false)
  const main = useRef<HTMLElement>(null)
  useEffect(() => listen(() => setVersion((v) => v + 1), setLive), [])
  useEffect(() => {
    const onPop = () => setWhere({path: location.pathname, query: location.search})
    addEventListener('popstate', onPop)
    return () => removeEventListener('popstate', onPop)
  }, [])
  // A new page's heading takes the focus, so a keyboard or screen reader starts there.
  useEffect(() => {
    main.current?.querySelector<HTMLElement>('h1')?.focus({preventScroll: true})
    document.title = `${main.current?.querySelector('h1')?.textContent ?? 'Inspector'} · Sandbox inspector`
  }, [where.path, where.query])
  const section = where.path.slice(INSPECTOR_PATH.length).split('/')[1] || 'transactions'
  return html`<${Version.Provider} value=${version}>
    <${Header} section=${section} live=${live} />
    <main id="main" ref=${main}>${pageOf(where.path, new URLSearchParams(where.query))}</main>
  <//>`
}

/** Links within the inspector change the page without reloading it. */
document.addEventListener('click', (e) => {
  const a = (e.target as Element).closest?.('a')
  if (
    a === null ||
    a === undefined ||
    e.defaultPrevented ||
    e.button !== 0 ||
    e.metaKey ||
    e.ctrlKey ||
    e.shiftKey ||
    e.altKey
  )
    return
  const url = new URL(a.href, location.href)
  if (url.origin !== location.origin || !url.pathname.startsWith(INSPECTOR_PATH) || a.target !== '') return
  e.preventDefault()
  if (url.pathname + url.search !== location.pathname + location.search) navigate(url.pathname + url.search)
})

const root = document.getElementById('app')!
// What the page showed while the bundle loaded gives way to it.
root.replaceChildren()
render(html`<${App} />`, root)
