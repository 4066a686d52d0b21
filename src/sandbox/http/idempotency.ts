import type {SQLInputValue} from 'node:sqlite'
import {column} from '../storage/column-rules.js'
import {byPartner, type Database, type Schema, type Statement} from '../storage/database.js'
import {RowsInsert} from '../storage/rows.js'
import {ApiError} from './api-error.js'
import {canonicalJson, sha256Hex} from './json.js'

/** How long a stored response is replayed for. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** Expired answers deleted at most in one go, so that a purge never holds up the requests behind it. */
const PURGE_BATCH = 500
/** How often expired answers are looked for while the sandbox runs. */
const PURGE_EVERY_MS = 60_000

/**
 * The stored answers of requests made under an Idempotency-Key, in the order they were answered:
 * an answer (a few hundred bytes) is appended at the end of the table, and only a narrow index
 * entry goes where its key sorts. Keyed on the key itself, every answer went to a random page of a
 * B-tree of whole answers, and each group commit wrote one such page per request, split more often.
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
CREATE INDEX IF NOT EXISTS idempotency_log_by_key ON idempotency_log (partner_id, key);
CREATE INDEX IF NOT EXISTS idempotency_log_by_age ON idempotency_log (created_at);
`,
  tables: [
    byPartner('idempotency_log', {
      seq: column.seq,
      key: column.code('', ' -~', 1, 255),
      fingerprint: column.code('', '0-9a-f', 64),
      status: column.int(100, 599),
      body: column.json('any', 1024 * 1024),
      request_id: column.id('req'),
      created_at: column.ms,
    }),
  ],
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
  fingerprint: string
  status: number
  body: string
  request_id: string
  created_at: number
}

/** A stored answer held back, as its INSERT's values: partner, key, fingerprint, status, body, request id, time. */
const heldRow = (values: readonly SQLInputValue[]): LogRow => ({
  fingerprint: values[2] as string,
  status: values[3] as number,
  body: values[4] as string,
  request_id: values[5] as string,
  created_at: values[6] as number,
})

/**
 * Idempotency keys per partner, in SQLite so that a replay survives a restart, a restore and
 * anything else that changes the file: `find` tells a request what its key says (new, a replay, a
 * conflict); `complete` stores the response to replay, in the transaction of the change it answers.
 */
export class IdempotencyStore {
  readonly #latest: Statement<LogRow>
  readonly #append: RowsInsert
  readonly #purge: Statement

  constructor(private readonly database: Database) {
    // Answers stored in the open group are held back (RowsInsert.hold): find reads those first.
    this.#latest = database.prepare<LogRow>(
      `SELECT fingerprint, status, body, request_id, created_at FROM idempotency_log
       WHERE partner_id = ? AND key = ? ORDER BY seq DESC LIMIT 1`,
      {heldRowsReadFirst: true},
    )
    this.#append = new RowsInsert(
      database,
      'INSERT INTO idempotency_log (partner_id, key, fingerprint, status, body, request_id, created_at)',
      7,
    )
    this.#purge = database.prepare(
      'DELETE FROM idempotency_log WHERE seq IN (SELECT seq FROM idempotency_log WHERE created_at < ? ORDER BY created_at LIMIT ?)',
    )
    while (this.purgeExpired(Date.now()) > 0);
  }

  /** What the key says of a request identified by `fingerprint`: never seen (or expired), a replay, or a conflict. */
  find(partnerId: string, key: string, fingerprint: string, now = Date.now()): Reservation {
    const held = this.database.held?.latest(this.#append, (row) => row[0] === partnerId && row[1] === key)
    const row = held === undefined ? this.#latest.get(partnerId, key) : heldRow(held)
    if (row === undefined || row.created_at < now - IDEMPOTENCY_TTL_MS) return {kind: 'new'}
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
    const {status, body, requestId} = response
    this.#append.hold([[partnerId, key, fingerprint, status, body, requestId, now]])
  }

  /** Delete up to `limit` answers older than 24 hours, oldest first; returns how many. */
  purgeExpired(now: number, limit = PURGE_BATCH): number {
    return Number(this.database.transaction(() => this.#purge.run(now - IDEMPOTENCY_TTL_MS, limit)).changes)
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
