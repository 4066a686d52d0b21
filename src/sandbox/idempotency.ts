import {byPartner, type Database, type Schema, type Statement} from './database.js'
import {ApiError} from './errors.js'
import {canonicalJson, sha256Hex} from './json.js'

/** How long a stored response is replayed for. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** Expired answers deleted at most in one go, so that a purge never holds up the requests behind it. */
const PURGE_BATCH = 500
/** How often expired answers are looked for while the sandbox runs. */
const PURGE_EVERY_MS = 60_000

/**
 * The stored answers of requests made under an Idempotency-Key, in the order they were answered.
 * Rows are only ever appended at the end (and purged from the start after 24 hours): a key is
 * found through an index kept in memory, never through a B-tree of random keys, whose insertions
 * would dirty a page of the file anywhere for each request.
 */
export const IDEMPOTENCY: Schema = {
  name: 'idempotency',
  sql: `
CREATE TABLE IF NOT EXISTS idempotency_log (
  seq INTEGER PRIMARY KEY,
  partner_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  request_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`,
  tables: [byPartner('idempotency_log')],
  migrations: [{version: 6, up: logStoredKeys}],
}

/** Schema 5 to 6: the stored answers of the keyed table, oldest first, become the log. */
function logStoredKeys(database: Database): void {
  const had = database.prepare<{name: string}>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'idempotency_keys'",
  )
  if (had.get() === undefined) return
  database.db.exec(`
INSERT INTO idempotency_log (partner_id, key, fingerprint, status, body, request_id, created_at)
  SELECT partner_id, key, fingerprint, status, body, request_id, created_at FROM idempotency_keys
  WHERE state = 'done' ORDER BY created_at;
DROP TABLE idempotency_keys;`)
}

export interface StoredResponse {
  status: number
  body: string
  requestId: string
}

export type Reservation = {kind: 'new'} | {kind: 'replay'; response: StoredResponse} | {kind: 'conflict'}

interface LogRow {
  partner_id: string
  key: string
  fingerprint: string
  status: number
  body: string
  request_id: string
  created_at: number
}

/**
 * Idempotency keys per partner, in SQLite so that a replay survives a restart. `find` tells a
 * request what its key says (new, a replay, a conflict); `complete` stores the response to replay,
 * in the transaction of the change it answers.
 *
 * The index in memory maps each partner's keys to the row of their latest answer. It is rebuilt
 * from the log at start and after a restore, and let go of when a partner's rows are deleted. It
 * is never trusted alone: the row it points to must name the same partner and key, so an entry
 * whose transaction rolled back (its row never written, its number given to another) is no answer.
 */
export class IdempotencyStore {
  readonly #index = new Map<string, Map<string, number>>()
  readonly #row: Statement<LogRow>
  readonly #append: Statement
  readonly #keysOf: Statement<{seq: number; key: string}>
  readonly #oldest: Statement<{seq: number; partner_id: string; key: string; created_at: number}>
  readonly #purge: Statement

  constructor(private readonly database: Database) {
    this.#row = database.prepare<LogRow>(
      'SELECT partner_id, key, fingerprint, status, body, request_id, created_at FROM idempotency_log WHERE seq = ?',
    )
    this.#append = database.prepare(
      `INSERT INTO idempotency_log (partner_id, key, fingerprint, status, body, request_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    this.#keysOf = database.prepare<{seq: number; key: string}>(
      'SELECT seq, key FROM idempotency_log WHERE partner_id = ? ORDER BY seq',
    )
    this.#oldest = database.prepare(
      'SELECT seq, partner_id, key, created_at FROM idempotency_log ORDER BY seq LIMIT ?',
    )
    this.#purge = database.prepare('DELETE FROM idempotency_log WHERE seq <= ?')
    while (this.purgeExpired(Date.now(), 50_000) > 0);
    this.#load()
  }

  /** Every key of the log, each to its latest answer (the log is in order: later rows win). */
  #load(): void {
    this.#index.clear()
    const all = this.database.db.prepare('SELECT seq, partner_id, key FROM idempotency_log ORDER BY seq')
    for (const row of all.iterate() as Iterable<{seq: number; partner_id: string; key: string}>)
      this.#keys(row.partner_id).set(row.key, row.seq)
  }

  #keys(partnerId: string): Map<string, number> {
    let keys = this.#index.get(partnerId)
    if (keys === undefined) {
      keys = new Map()
      this.#index.set(partnerId, keys)
    }
    return keys
  }

  /** What the key says of a request identified by `fingerprint`: never seen (or expired), a replay, or a conflict. */
  find(partnerId: string, key: string, fingerprint: string, now = Date.now()): Reservation {
    const seq = this.#index.get(partnerId)?.get(key)
    if (seq === undefined) return {kind: 'new'}
    const row = this.#row.get(seq)
    if (row === undefined || row.partner_id !== partnerId || row.key !== key) {
      this.#index.get(partnerId)?.delete(key)
      return {kind: 'new'}
    }
    if (row.created_at < now - IDEMPOTENCY_TTL_MS) return {kind: 'new'}
    if (row.fingerprint !== fingerprint) return {kind: 'conflict'}
    return {kind: 'replay', response: {status: row.status, body: row.body, requestId: row.request_id}}
  }

  /** Store the response to replay for the key: call it in the transaction of the change it answers. */
  complete(
    partnerId: string,
    key: string,
    fingerprint: string,
    response: StoredResponse,
    now = Date.now(),
  ): void {
    const {lastInsertRowid} = this.#append.run(
      partnerId,
      key,
      fingerprint,
      response.status,
      response.body,
      response.requestId,
      now,
    )
    this.#keys(partnerId).set(key, Number(lastInsertRowid))
  }

  /** Let go of the partner's keys (its rows were deleted). */
  forget(partnerId: string): void {
    this.#index.delete(partnerId)
  }

  /** Read the partner's keys again from the log (its rows were restored from a snapshot). */
  reload(partnerId: string): void {
    const keys = new Map<string, number>()
    for (const row of this.#keysOf.all(partnerId)) keys.set(row.key, row.seq)
    this.#index.set(partnerId, keys)
  }

  /**
   * Delete up to `limit` answers older than 24 hours from the start of the log, and their keys from
   * the index (unless a later answer took the key); returns how many.
   */
  purgeExpired(now: number, limit = PURGE_BATCH): number {
    const oldest = this.#oldest.all(limit)
    // The log is in the order answers were given: what expired is where it starts, up to the first
    // answer still kept (even if the system clock went back, nothing younger is deleted).
    const kept = oldest.findIndex((row) => row.created_at >= now - IDEMPOTENCY_TTL_MS)
    const expired = kept === -1 ? oldest : oldest.slice(0, kept)
    const last = expired.at(-1)
    if (last === undefined) return 0
    this.database.transaction(() => this.#purge.run(last.seq))
    for (const row of expired) {
      const keys = this.#index.get(row.partner_id)
      if (keys?.get(row.key) === row.seq) keys.delete(row.key)
    }
    return expired.length
  }

  /**
   * Purge expired answers in the background, a batch per turn of the event loop; never keeps the
   * process alive.
   */
  sweep(log?: (line: string) => void): {stop(): void} {
    let next: NodeJS.Immediate | undefined
    const batch = () => {
      next = undefined
      try {
        if (this.purgeExpired(Date.now()) === PURGE_BATCH) next = setImmediate(batch)
      } catch (err) {
        log?.(`idempotency purge failed: ${String(err)}`)
      }
    }
    const timer = setInterval(() => {
      if (next === undefined) batch()
    }, PURGE_EVERY_MS)
    timer.unref()
    return {
      stop: () => {
        clearInterval(timer)
        if (next !== undefined) clearImmediate(next)
      },
    }
  }
}

function bodyKey(body: unknown): unknown {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as {idempotencyKey?: unknown}).idempotencyKey
    : undefined
}

/**
 * A request's idempotency key: the `Idempotency-Key` header, or the `idempotencyKey` field that
 * POST /transactions also accepts in its body. Both may be sent if they agree.
 */
export function idempotencyKeyOf(
  header: string | string[] | undefined,
  body: unknown,
): string | string[] | undefined {
  const field = bodyKey(body)
  if (typeof field !== 'string') return header
  if (header !== undefined && header !== field) {
    throw new ApiError(
      'VALIDATION_ERROR',
      'The Idempotency-Key header and the idempotencyKey body field differ; send one key, or the same in both',
      {
        field: 'idempotencyKey',
        issues: [
          {path: 'idempotencyKey', code: 'key_mismatch', message: 'Differs from the Idempotency-Key header'},
        ],
      },
    )
  }
  return field
}

/** The body without its `idempotencyKey` field: where the key travels does not change the request. */
function withoutIdempotencyKey(body: unknown): unknown {
  if (bodyKey(body) === undefined) return body
  const {idempotencyKey: _key, ...rest} = body as Record<string, unknown>
  return rest
}

/**
 * What identifies a request under its key: the endpoint it matched (`POST /transactions`), its path
 * parameters and query as the router decoded them, and its JSON body, each written canonically. Not
 * the URL as sent: a trailing slash, percent-encoding or the order of query parameters is another
 * spelling of the same request, which must replay rather than conflict.
 */
export function fingerprintOf(
  endpoint: {method: string; path: string},
  params: unknown,
  query: unknown,
  body: unknown,
): string {
  const parts = [params, query, withoutIdempotencyKey(body)].map(canonicalJson)
  return sha256Hex(`${endpoint.method} ${endpoint.path}\n${parts.join('\n')}`)
}
