import {byPartner, type Database, type Schema, type Statement} from './database.js'
import {ApiError} from './errors.js'
import {canonicalJson, sha256Hex} from './json.js'

/** How long a stored response is replayed for. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** The stored answers of requests made under an Idempotency-Key. */
export const IDEMPOTENCY: Schema = {
  name: 'idempotency',
  sql: `
CREATE TABLE IF NOT EXISTS idempotency_keys (
  partner_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  status INTEGER,
  body TEXT,
  request_id TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (partner_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_keys_by_age ON idempotency_keys (created_at);
CREATE INDEX IF NOT EXISTS idempotency_keys_in_flight ON idempotency_keys (created_at) WHERE state = 'in_flight';
`,
  tables: [byPartner('idempotency_keys')],
}

export interface StoredResponse {
  status: number
  body: string
  requestId: string
}

export type Reservation =
  | {kind: 'new'}
  | {kind: 'replay'; response: StoredResponse}
  | {kind: 'conflict'}
  | {kind: 'in-flight'}

interface KeyRow {
  fingerprint: string
  state: 'in_flight' | 'done'
  status: number | null
  body: string | null
  request_id: string | null
  created_at: number
}

/**
 * Idempotency keys per partner, in SQLite so that a replay survives a restart. `begin` reserves a
 * key for a request (identified by its fingerprint, see fingerprintOf); `complete` stores
 * the response to replay; `release` forgets a reservation whose request did not run to completion.
 */
export class IdempotencyStore {
  private readonly get: Statement<KeyRow>
  private readonly remove: Statement
  private readonly reserve: Statement
  private readonly save: Statement

  constructor(database: Database) {
    // A reservation still in flight at start-up belongs to a process that died mid-request. Each
    // found through its index: a start reads none of the keys that stay.
    database.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').run(Date.now() - IDEMPOTENCY_TTL_MS)
    database.prepare("DELETE FROM idempotency_keys WHERE state = 'in_flight'").run()
    this.get = database.prepare<KeyRow>(
      'SELECT fingerprint, state, status, body, request_id, created_at FROM idempotency_keys WHERE partner_id = ? AND key = ?',
    )
    this.remove = database.prepare('DELETE FROM idempotency_keys WHERE partner_id = ? AND key = ?')
    this.reserve = database.prepare(
      "INSERT INTO idempotency_keys (partner_id, key, fingerprint, state, created_at) VALUES (?, ?, ?, 'in_flight', ?)",
    )
    this.save = database.prepare(
      `INSERT INTO idempotency_keys (partner_id, key, fingerprint, state, status, body, request_id, created_at)
       VALUES (?, ?, ?, 'done', ?, ?, ?, ?)
       ON CONFLICT (partner_id, key) DO UPDATE SET
         state = 'done', status = excluded.status, body = excluded.body, request_id = excluded.request_id`,
    )
  }

  begin(partnerId: string, key: string, fingerprint: string, now = Date.now()): Reservation {
    const found = this.find(partnerId, key, fingerprint, now)
    if (found.kind === 'new') this.reserve.run(partnerId, key, fingerprint, now)
    return found
  }

  /**
   * What `begin` answers, without reserving a new key. For a request that runs to completion in the
   * same database transaction as its `complete` (every sandbox request does): nobody else can see
   * the key in between, so a reservation would be one more write for nothing.
   */
  find(partnerId: string, key: string, fingerprint: string, now = Date.now()): Reservation {
    const row = this.get.get(partnerId, key)
    if (row === undefined) return {kind: 'new'}
    if (row.created_at < now - IDEMPOTENCY_TTL_MS) {
      this.remove.run(partnerId, key)
      return {kind: 'new'}
    }
    if (row.fingerprint !== fingerprint) return {kind: 'conflict'}
    if (row.state === 'in_flight') return {kind: 'in-flight'}
    return {
      kind: 'replay',
      response: {status: row.status ?? 200, body: row.body ?? '', requestId: row.request_id ?? ''},
    }
  }

  complete(
    partnerId: string,
    key: string,
    fingerprint: string,
    response: StoredResponse,
    now = Date.now(),
  ): void {
    this.save.run(partnerId, key, fingerprint, response.status, response.body, response.requestId, now)
  }

  release(partnerId: string, key: string): void {
    this.remove.run(partnerId, key)
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
