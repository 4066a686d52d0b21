import {createCipheriv, createDecipheriv, randomBytes} from 'node:crypto'
import type {Columns, Database, Statement} from '../storage/database.js'
import {keyShape} from '../storage/meta-shapes.js'
import {ApiError} from './api-error.js'

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
    // The IV's first bit clear, so the cursor never starts with `-`: `--cursor=-w…` would read as
    // the -w flag to a command line parser such as oclif's, and the cursor could not be passed back.
    iv[0]! &= 0x7f
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

/** The position a list's `cursor` holds; one this sandbox did not seal for the list and partner is 400 VALIDATION_ERROR. */
export function cursorPosition(cursors: Cursors, list: string, partnerId: string, cursor: string): number {
  const position = cursors.open(list, partnerId, cursor)
  if (position !== undefined) return position
  throw new ApiError(
    'VALIDATION_ERROR',
    'Invalid query: cursor is not one this sandbox issued for this list to this partner; pass the nextCursor of the previous page',
    {field: 'cursor', issues: [{path: 'cursor', code: 'invalid_cursor', message: 'Unknown cursor'}]},
  )
}

/** What a cursor is bound to besides its position; NUL cannot occur in a list name or partner id. */
function binding(list: string, partnerId: string): Buffer {
  return Buffer.from(`${list}\0${partnerId}`)
}

/** A list as one table's rows of a partner, filtered, paged and ordered by `seq`. */
export interface ListSpec<Filter extends string> {
  /** The list's name: its cursors open for it alone (with the partner they were issued to). */
  name: string
  table: string
  order: 'oldest first' | 'newest first'
  /**
   * The filters it takes, by name: each a condition with one `?` or more, all given the filter's
   * value, joined in this order.
   */
  filters: Record<Filter, string>
}

/** One page of a list: its rows, whether another follows, and the cursor to it. */
export interface Page<Row> {
  rows: Row[]
  hasMore: boolean
  nextCursor: string | null
}

/**
 * Every list of the sandbox: a partner's rows of one table, filtered, paged by sealed cursors. A
 * page reads one row more than its limit from where it starts and shows the limit: the extra row
 * says that another page follows. A cursor holds the `seq` of the last row shown, sealed (see
 * Cursors). One statement per combination of the filters given, prepared on first use.
 */
export class PagedList<Row extends Columns<Row> & {seq: number}, Filter extends string = never> {
  readonly #statements = new Map<string, Statement<Row>>()

  constructor(
    private readonly database: Database,
    private readonly cursors: Cursors,
    private readonly spec: ListSpec<Filter>,
  ) {}

  /** The page of the partner's rows that `query` asks for, of those that pass the filters given. */
  page(
    partnerId: string,
    filters: {[F in Filter]?: string | undefined},
    query: {cursor?: string | undefined; limit?: number | undefined},
  ): Page<Row> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE
    const given = (Object.keys(this.spec.filters) as Filter[]).filter((f) => filters[f] !== undefined)
    const params: (string | number)[] = [partnerId, this.#start(partnerId, query.cursor)]
    for (const f of given) {
      const value = filters[f]!
      for (let n = this.#placeholders(f); n > 0; n--) params.push(value)
    }
    const rows = this.#statement(given).all(...params, limit + 1)
    const hasMore = rows.length > limit
    const shown = hasMore ? rows.slice(0, limit) : rows
    const last = shown.at(-1)?.seq
    const nextCursor =
      hasMore && last !== undefined ? this.cursors.seal(this.spec.name, partnerId, last) : null
    return {rows: shown, hasMore, nextCursor}
  }

  #placeholders(filter: Filter): number {
    return this.spec.filters[filter].split('?').length - 1
  }

  /** The `seq` a page starts after (oldest first) or before (newest first): the cursor's, or the end. */
  #start(partnerId: string, cursor: string | undefined): number {
    if (cursor === undefined) return this.spec.order === 'oldest first' ? 0 : Number.MAX_SAFE_INTEGER
    return cursorPosition(this.cursors, this.spec.name, partnerId, cursor)
  }

  #statement(given: Filter[]): Statement<Row> {
    const key = given.join(',')
    let statement = this.#statements.get(key)
    if (statement === undefined) {
      const {table, order, filters} = this.spec
      const oldestFirst = order === 'oldest first'
      const where = ['partner_id = ?', oldestFirst ? 'seq > ?' : 'seq < ?', ...given.map((f) => filters[f])]
      statement = this.database.prepare<Row>(
        `SELECT * FROM ${table} WHERE ${where.join(' AND ')} ORDER BY seq ${oldestFirst ? 'ASC' : 'DESC'} LIMIT ?`,
      )
      this.#statements.set(key, statement)
    }
    return statement
  }
}
