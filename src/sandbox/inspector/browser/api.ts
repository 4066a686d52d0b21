import {
  CSRF_HEADER,
  INSPECTOR_API,
  INSPECTOR_PATH,
  type InspectorRead,
  type SearchResult,
  type TimelinePage,
} from '../../../contract/inspector.js'
import type {TimelineLine} from './records.js'

/**
 * How the pages talk to the sandbox: the inspector's data routes, with the session cookie the
 * browser sends by itself and, for a change, the CSRF token the page was served with.
 */

/** A refusal or failure of the inspector's data routes, as the page shows it. */
export class LoadError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? ''

/** Who is signed in, from the page the sandbox served. */
export const session = {
  csrf: meta('payctl-csrf'),
  partner: meta('payctl-partner'),
  partnerId: meta('payctl-partner-id'),
}

/** JSON with every integer exact: amounts beyond 2^53 (wei, yoctoNEAR) are read as bigint. */
export function parseExact(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: {source?: string}) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '')
      ? BigInt(context!.source!)
      : value
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown)
}

/**
 * What the page's first reads answer, sent with the page itself (a data block, never run): each is
 * used once, by the first read of its address; later reads ask the sandbox.
 */
const preloaded = new Map<string, unknown>(
  Object.entries(
    (parseExact(document.getElementById('payctl-preload')?.textContent || '{}') ?? {}) as object,
  ),
)

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  if (init.method === undefined && preloaded.has(path)) {
    const answer = preloaded.get(path) as T
    preloaded.delete(path)
    return answer
  }
  const res = await fetch(`${INSPECTOR_API}${path}`, {credentials: 'same-origin', ...init})
  const text = await res.text()
  const body = (text === '' ? undefined : parseExact(text)) as
    | {error?: {code: string; message: string}}
    | undefined
  if (res.status === 401) {
    // The session is over (signed out elsewhere, the partner deleted, the sandbox restarted).
    location.assign(
      `${INSPECTOR_PATH}/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`,
    )
  }
  if (!res.ok) {
    throw new LoadError(
      res.status,
      body?.error?.code ?? 'ERROR',
      body?.error?.message ?? `HTTP ${res.status}`,
    )
  }
  return body as T
}

type Query = Record<string, string | number | undefined>

const queryString = (query: Query) => {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v))
  const text = params.toString()
  return text === '' ? '' : `?${text}`
}

/** Run one of the sandbox's read operations for the signed-in partner. */
export function read<T>(operation: InspectorRead, query: Query = {}): Promise<T> {
  return request<T>(`/read/${operation}${queryString(query)}`)
}

export const search = (q: string) => request<SearchResult>(`/search${queryString({q})}`)

/** A page of a user's timeline; `events`: the webhook events as lines of their own. */
export const timeline = (userId: string, cursor: string | undefined, events: boolean) =>
  request<TimelinePage<TimelineLine>>(
    `/users/${encodeURIComponent(userId)}/timeline${queryString({cursor, events: events ? 1 : undefined})}`,
  )

function change<T>(path: string, body: unknown = {}): Promise<T> {
  return request<T>(path, {
    method: 'POST',
    headers: {'content-type': 'application/json', [CSRF_HEADER]: session.csrf},
    body: JSON.stringify(body),
  })
}

export const resend = (eventId: string) =>
  change<{deliveries: unknown[]}>(`/events/${encodeURIComponent(eventId)}/resend`)

export const advance = (seconds: number) =>
  change<{now: string; offsetSeconds: number; frozen: boolean; settled: number}>('/clock/advance', {seconds})

/** End the session, then back to the sign-in form. */
export async function signOut(): Promise<void> {
  await fetch(`${INSPECTOR_PATH}/sign-out`, {method: 'POST', headers: {[CSRF_HEADER]: session.csrf}})
  location.assign(`${INSPECTOR_PATH}/sign-in`)
}

/**
 * Hear of the partner's changes: `onChange` runs after each burst of them. The browser reconnects
 * a dropped stream by itself; `onState` says whether it is live.
 */
export function listen(onChange: () => void, onState: (live: boolean) => void): () => void {
  const source = new EventSource(`${INSPECTOR_API}/stream`)
  source.addEventListener('change', () => onChange())
  source.addEventListener('open', () => onState(true))
  source.addEventListener('error', () => onState(false))
  return () => source.close()
}
