import {INSPECTOR_PATH, type InspectorRead} from '../../contract/inspector.js'
import {ApiError} from '../http/api-error.js'
import type {InspectorService} from './service.js'
import {timelinePage} from './timeline.js'

/** Rows of a list's first page, as the pages ask for them. */
export const LIST_PAGE = 50

type Read = {operation: InspectorRead; id?: string; query?: Record<string, string | number>}

/** The address a page reads `read` at, below the inspector's API, exactly as the bundle writes it. */
export function readAddress({operation, id, query = {}}: Read): string {
  const params = new URLSearchParams()
  if (id !== undefined) params.set('id', id)
  for (const [k, v] of Object.entries(query)) params.set(k, String(v))
  const text = params.toString()
  return `/read/${operation}${text === '' ? '' : `?${text}`}`
}

/** The reads a page makes before it can show its first table, by the page's path. */
function firstReads(path: string): {reads: Read[]; timelineOf?: string} {
  const [section = 'transactions', id] = path.slice(INSPECTOR_PATH.length).split('/').filter(Boolean)
  if (id !== undefined && section === 'users') {
    const userId = decodeURIComponent(id)
    return {
      reads: [
        {operation: 'getUser', id: userId},
        {operation: 'listWallets', query: {userId, limit: 100}},
      ],
      timelineOf: userId,
    }
  }
  if (id !== undefined) return {reads: []}
  const lists: Record<string, Read> = {
    transactions: {operation: 'listTransactions', query: {limit: LIST_PAGE}},
    users: {operation: 'listUsers', query: {limit: LIST_PAGE}},
    events: {operation: 'listEvents', query: {limit: LIST_PAGE}},
  }
  const list = lists[section]
  return {reads: list === undefined ? [] : [list]}
}

/**
 * What a page's first reads answer, by their address, read in the sandbox while it answers the
 * page itself: the page then shows its first table without asking again. A read that fails is
 * left out, and the page asks for it as ever (and shows its refusal).
 */
export async function preloadFor(
  service: InspectorService,
  partnerId: string,
  path: string,
): Promise<Record<string, unknown>> {
  const {reads, timelineOf} = firstReads(path)
  const found: Record<string, unknown> = {}
  const quietly = async (address: string, read: () => Promise<unknown>) => {
    try {
      found[address] = await read()
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
    }
  }
  for (const r of reads) await quietly(readAddress(r), () => service.read(partnerId, r.operation, r))
  if (timelineOf !== undefined) {
    const address = `/users/${encodeURIComponent(timelineOf)}/timeline`
    await quietly(address, () => timelinePage(service, partnerId, timelineOf, {events: false}))
  }
  return found
}
