import {DatabaseSync} from 'node:sqlite'

/** Bumped whenever the tables below change shape; a file from a newer sandbox is refused. */
const SCHEMA_VERSION = 1

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS partners (
  partner_id TEXT PRIMARY KEY,
  api_key TEXT NOT NULL UNIQUE,
  api_secret TEXT NOT NULL,
  secret_key TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  started_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  email TEXT NOT NULL,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  external_id TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS users_by_partner ON users (partner_id);

-- Amounts are TEXT: 18- and 24-decimal currencies overflow SQLite's 64-bit integers.
CREATE TABLE IF NOT EXISTS wallets (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  status TEXT NOT NULL,
  label TEXT,
  available TEXT NOT NULL,
  pending TEXT NOT NULL,
  reserved TEXT NOT NULL,
  limit_transaction TEXT NOT NULL,
  limit_daily TEXT NOT NULL,
  limit_monthly TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, currency)
);
CREATE INDEX IF NOT EXISTS wallets_by_partner ON wallets (partner_id, seq);

CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  partner_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_partner ON events (partner_id, seq);

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

CREATE TABLE IF NOT EXISTS revoked_tokens (
  jti TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
`

/** The sandbox's SQLite database, with a transaction helper that nests. */
export class Database {
  readonly db: DatabaseSync
  private depth = 0

  constructor(path: string) {
    this.db = new DatabaseSync(path)
    this.db.exec('PRAGMA busy_timeout = 5000')
    if (path !== ':memory:' && path !== '') {
      // WAL lets readers run beside the writer, and NORMAL sync is durable enough for a sandbox.
      this.db.exec('PRAGMA journal_mode = WAL')
      this.db.exec('PRAGMA synchronous = NORMAL')
    }
    this.migrate()
  }

  private migrate(): void {
    this.transaction(() => {
      this.db.exec(SCHEMA)
      const row = this.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
        | {value: string}
        | undefined
      if (row === undefined) {
        this.db
          .prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)")
          .run(String(SCHEMA_VERSION))
      } else if (Number(row.value) > SCHEMA_VERSION) {
        throw new Error(
          `the sandbox data file was written by a newer payctl (schema ${row.value}, this one knows ${SCHEMA_VERSION})`,
        )
      }
    })
  }

  /**
   * Run `fn` in a transaction and roll it back if `fn` throws. A nested call runs in a savepoint, so
   * a failing inner step undoes only its own writes and the outer caller decides what to keep.
   */
  transaction<T>(fn: () => T): T {
    const savepoint = this.depth > 0 ? `sp${this.depth}` : undefined
    this.db.exec(savepoint === undefined ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`)
    this.depth++
    try {
      const result = fn()
      this.db.exec(savepoint === undefined ? 'COMMIT' : `RELEASE ${savepoint}`)
      return result
    } catch (err) {
      this.db.exec(savepoint === undefined ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`)
      throw err
    } finally {
      this.depth--
    }
  }

  /** Read a value of the `meta` table, or store `create()` under `key` the first time. */
  metaValue(key: string, create: () => string): string {
    return this.transaction(() => {
      const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
        | {value: string}
        | undefined
      if (row !== undefined) return row.value
      const value = create()
      this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, value)
      return value
    })
  }

  close(): void {
    if (this.db.isOpen) this.db.close()
  }
}
