import {ApiError} from './errors.js'

/** Page size of every list when `limit` is not given (they accept 1 to 100). */
export const DEFAULT_PAGE_SIZE = 20

/**
 * The pages of one list, ordered by its rows' `seq`. A list reads one row more than the page's
 * limit from where the page starts, and shows the limit: the extra row says that another page
 * follows. Cursors are opaque to clients: the list's kind and the `seq` of the last row shown.
 */
export class Pagination {
  constructor(
    private readonly kind: string,
    private readonly order: 'oldest first' | 'newest first',
  ) {}

  /** The `seq` a page starts after (oldest first) or before (newest first): the cursor's, or the end. */
  start(cursor: string | undefined): number {
    if (cursor === undefined) return this.order === 'oldest first' ? 0 : Number.MAX_SAFE_INTEGER
    const match = new RegExp(`^${this.kind}:(\\d{1,15})$`).exec(Buffer.from(cursor, 'base64url').toString())
    if (match?.[1] === undefined) {
      throw new ApiError('VALIDATION_ERROR', 'Invalid query: cursor is not one this sandbox issued', {
        field: 'cursor',
        issues: [{path: 'cursor', code: 'invalid_cursor', message: 'Unknown cursor'}],
      })
    }
    return Number(match[1])
  }

  /** The page of `rows` (read with `limit + 1`), whether another follows, and the cursor to it. */
  page<R extends {seq?: number | undefined}>(
    rows: R[],
    limit: number,
  ): {shown: R[]; hasMore: boolean; nextCursor: string | null} {
    const hasMore = rows.length > limit
    const shown = hasMore ? rows.slice(0, limit) : rows
    const last = shown.at(-1)?.seq
    const nextCursor =
      hasMore && last !== undefined ? Buffer.from(`${this.kind}:${last}`).toString('base64url') : null
    return {shown, hasMore, nextCursor}
  }
}
