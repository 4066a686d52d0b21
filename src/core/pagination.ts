import {unwrapEnvelope} from '../contract/index.js'
import {parseExact} from './exact-json.js'
import type {HttpResponse} from './transport.js'

/** The cursor of the page after this one, from a list body of either response shape. */
export function nextCursorOf(body: unknown): string | undefined {
  const data = unwrapEnvelope(body) as {hasMore?: unknown; nextCursor?: unknown} | null
  if (data && typeof data === 'object' && data.hasMore === true && typeof data.nextCursor === 'string') {
    return data.nextCursor
  }
  return undefined
}

/**
 * Fetch a list page by page, yielding each raw response as it arrives, until a page says there is
 * no more (or answers an error, which is yielded and ends the walk).
 */
export async function* followPages(
  path: string,
  fetchPage: (path: string) => Promise<HttpResponse>,
): AsyncGenerator<HttpResponse> {
  let next: string | undefined = path
  while (next !== undefined) {
    const res = await fetchPage(next)
    yield res
    if (res.status >= 300) return
    let cursor: string | undefined
    try {
      cursor = nextCursorOf(parseExact(res.text))
    } catch {
      cursor = undefined
    }
    if (cursor === undefined) return
    const url = new URL(next, 'http://x')
    url.searchParams.set('cursor', cursor)
    next = `${url.pathname}${url.search}`
  }
}

/** Walk every page of a typed list call, yielding its items as they arrive. */
export async function* allItems<T, P extends {hasMore?: unknown; nextCursor?: unknown}>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  itemsOf: (page: P) => T[],
  first?: string,
): AsyncGenerator<T> {
  let cursor = first
  for (;;) {
    const page = await fetchPage(cursor)
    yield* itemsOf(page)
    if (page.hasMore !== true || typeof page.nextCursor !== 'string' || page.nextCursor === '') return
    cursor = page.nextCursor
  }
}
