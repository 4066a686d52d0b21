import type {RequestLogEntry, RequestLogPage, RequestLogQuery} from '../../contract/request-log.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import type {RequestLogStore, StoredEntry} from './store.js'

/** Lines a read returns when it names no limit. */
export const DEFAULT_LINES = 20

/** The name its cursors are sealed for (http/pagination.ts): they open for this log alone. */
const CURSOR_LIST = 'request-log'

/** Who sees which lines: a partner its own, and the operator besides those of no partner. */
export type Visibility = (partnerId: string) => boolean

/**
 * Whether `partnerId` runs this sandbox, and so also sees the lines of requests no credential
 * admitted (health checks, failed sign-ins, unknown routes): today the partner the sandbox was
 * started for. The one place that says who the operator is.
 */
export const isOperator =
  ({partners}: Pick<SandboxContext, 'partners'>): Visibility =>
  (partnerId) =>
    partnerId === partners.operator

/** Reading and keeping the request log (docs/sandbox.md#the-request-log). */
export class RequestLogService {
  constructor(
    private readonly store: RequestLogStore,
    private readonly cursors: SandboxContext['cursors'],
    private readonly operator: Visibility,
  ) {}

  record(entry: RequestLogEntry): void {
    this.store.append(entry)
  }

  close(): void {
    this.store.close()
  }

  /**
   * The caller's lines that match the query: without a cursor the newest ones, with one the first
   * after it; and the cursor to read on from.
   */
  read(partnerId: string, query: RequestLogQuery): RequestLogPage {
    const limit = query.limit ?? DEFAULT_LINES
    const match = matcher(partnerId, this.operator(partnerId), query)
    const latest = this.store.newest
    if (query.cursor === undefined) {
      const entries = this.store.latest(limit, match).map(shown)
      return {entries, cursor: this.cursors.seal(CURSOR_LIST, partnerId, latest), hasMore: false}
    }
    let after = this.#opened(partnerId, query.cursor)
    // A position past the newest line: the log began again (its files were removed); read it all.
    if (after > latest) after = 0
    const entries: RequestLogEntry[] = []
    let hasMore = false
    let last = after
    for (const entry of this.store.after(after)) {
      if (!match(entry)) continue
      if (entries.length === limit) {
        hasMore = true
        break
      }
      entries.push(shown(entry))
      last = entry.seq
    }
    // Every line up to the newest was looked at: the next read starts after it.
    if (!hasMore) last = latest
    return {entries, cursor: this.cursors.seal(CURSOR_LIST, partnerId, last), hasMore}
  }

  #opened(partnerId: string, cursor: string): number {
    const position = this.cursors.open(CURSOR_LIST, partnerId, cursor)
    if (position !== undefined) return position
    throw new ApiError(
      'VALIDATION_ERROR',
      'Invalid query: cursor is not one this sandbox issued for its request log to this partner; pass the cursor of the previous read',
      {field: 'cursor', issues: [{path: 'cursor', code: 'invalid_cursor', message: 'Unknown cursor'}]},
    )
  }
}

/** A stored line as a reader gets it: without its position, which would tell how busy other partners are. */
function shown({seq: _seq, ...entry}: StoredEntry): RequestLogEntry {
  return entry
}

/** The lines a partner may see that pass the query's filters. */
function matcher(
  partnerId: string,
  operator: boolean,
  query: RequestLogQuery,
): (entry: StoredEntry) => boolean {
  const checks: ((entry: StoredEntry) => boolean)[] = [
    (e) => e.partner === partnerId || (operator && e.partner === null),
  ]
  if (query.request !== undefined) checks.push((e) => e.requestId === query.request)
  if (query.status !== undefined) checks.push(statusFilter(query.status))
  if (query.path !== undefined) {
    const pattern = globPattern(query.path)
    checks.push((e) => pattern.test(e.path))
  }
  if (query.since !== undefined) {
    // Stored times are all toISOString()'s: compared as text, they compare as times.
    const since = new Date(query.since).toISOString()
    checks.push((e) => e.time >= since)
  }
  return (entry) => checks.every((check) => check(entry))
}

/** `4xx,429` → whether a status is a 4xx or 429. */
export function statusFilter(spec: string): (entry: {status: number}) => boolean {
  const parts = spec.toLowerCase().split(',')
  return ({status}) =>
    parts.some((part) =>
      part.endsWith('xx') ? Math.floor(status / 100) === Number(part[0]) : status === Number(part),
    )
}

/**
 * A path glob as a pattern of the whole path: `*` any run of characters within one segment, `**`
 * any run across segments, `?` one character other than `/`; everything else is itself.
 */
export function globPattern(glob: string): RegExp {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}
