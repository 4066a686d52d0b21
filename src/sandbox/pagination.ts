import {createCipheriv, createDecipheriv, randomBytes} from 'node:crypto'
import {type Database, keyShape} from './database.js'
import {ApiError} from './errors.js'

/** Page size of every list when `limit` is not given (they accept 1 to 100). */
export const DEFAULT_PAGE_SIZE = 20

const IV_BYTES = 12
const POSITION_BYTES = 8
const TAG_BYTES = 16

/**
 * The sandbox's cursor key, and the cursors it seals. A cursor is the AES-256-GCM encryption of a
 * row position, authenticated together with the list's name and the partner it was issued to: the
 * position stays hidden (rows are numbered across partners, so it would tell one partner how many
 * rows the others wrote), and a cursor spelled by hand, altered, or taken to another list or
 * partner fails authentication. The key is kept in the data file, so that cursors outlive a
 * restart, as tokens do.
 */
export class Cursors {
  readonly #key: Buffer

  constructor(database: Database) {
    this.#key = Buffer.from(
      database.metaValue('cursor_key', () => randomBytes(32).toString('base64'), keyShape(32)),
      'base64',
    )
  }

  seal(list: string, partnerId: string, position: number): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv).setAAD(binding(list, partnerId))
    const plain = Buffer.alloc(POSITION_BYTES)
    plain.writeBigUInt64BE(BigInt(position))
    return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString(
      'base64url',
    )
  }

  /** The position `cursor` holds, if this sandbox sealed it for `list` and `partnerId`. */
  open(list: string, partnerId: string, cursor: string): number | undefined {
    // Strict base64url of exactly one sealed position: Buffer.from would skip stray characters.
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
    const sealed = Buffer.from(cursor, 'base64url')
    if (sealed.length !== IV_BYTES + POSITION_BYTES + TAG_BYTES || sealed.toString('base64url') !== cursor) {
      return undefined
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(0, IV_BYTES))
      .setAAD(binding(list, partnerId))
      .setAuthTag(sealed.subarray(IV_BYTES + POSITION_BYTES))
    try {
      const plain = Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES, IV_BYTES + POSITION_BYTES)),
        decipher.final(),
      ])
      return Number(plain.readBigUInt64BE())
    } catch {
      return undefined
    }
  }
}

/** What a cursor is bound to besides its position; NUL cannot occur in a list name or partner id. */
function binding(list: string, partnerId: string): Buffer {
  return Buffer.from(`${list}\0${partnerId}`)
}

/** One partner's pages of a list: where a page starts, and the cursor to the next. */
export interface Pages {
  /** The `seq` a page starts after (oldest first) or before (newest first): the cursor's, or the end. */
  start(cursor: string | undefined): number
  /** The page of `rows` (read with `limit + 1`), whether another follows, and the cursor to it. */
  page<R extends {seq?: number | undefined}>(
    rows: R[],
    limit: number,
  ): {shown: R[]; hasMore: boolean; nextCursor: string | null}
}

/**
 * The pages of one list, ordered by its rows' `seq`. A list reads one row more than the page's
 * limit from where the page starts, and shows the limit: the extra row says that another page
 * follows. A cursor holds the `seq` of the last row shown, sealed (see Cursors).
 */
export class Pagination {
  constructor(
    private readonly list: string,
    private readonly order: 'oldest first' | 'newest first',
  ) {}

  /** The pages `partnerId` sees, with cursors sealed by `cursors`. */
  of(cursors: Cursors, partnerId: string): Pages {
    const {list, order} = this
    return {
      start(cursor) {
        if (cursor === undefined) return order === 'oldest first' ? 0 : Number.MAX_SAFE_INTEGER
        const position = cursors.open(list, partnerId, cursor)
        if (position === undefined) {
          throw new ApiError(
            'VALIDATION_ERROR',
            'Invalid query: cursor is not one this sandbox issued for this list to this partner; pass the nextCursor of the previous page',
            {
              field: 'cursor',
              issues: [{path: 'cursor', code: 'invalid_cursor', message: 'Unknown cursor'}],
            },
          )
        }
        return position
      },
      page(rows, limit) {
        const hasMore = rows.length > limit
        const shown = hasMore ? rows.slice(0, limit) : rows
        const last = shown.at(-1)?.seq
        const nextCursor = hasMore && last !== undefined ? cursors.seal(list, partnerId, last) : null
        return {shown, hasMore, nextCursor}
      },
    }
  }
}
