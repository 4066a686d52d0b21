import type {Database} from '../database.js'

/**
 * The webhook tables, kept apart from the core schema in database.ts: every statement is
 * idempotent (IF NOT EXISTS), so a data file from before webhooks simply gains them, and a newer
 * payctl adding columns here must bump the data file's schema version like any other change.
 * Times the scheduler compares are integers (ms since the epoch); times shown to users are ISO text.
 */
const WEBHOOK_SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at INTEGER,
  from_event_seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_by_partner ON webhook_endpoints (partner_id, seq);

CREATE TABLE IF NOT EXISTS webhook_listen_sessions (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  listener_key TEXT NOT NULL,
  secret TEXT NOT NULL,
  events TEXT NOT NULL,
  from_event_seq INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  connected_at INTEGER,
  ended_at INTEGER,
  UNIQUE (partner_id, listener_key)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  endpoint_id TEXT,
  session_id TEXT,
  url TEXT,
  state TEXT NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_status INTEGER,
  last_error TEXT,
  resend_of TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT,
  CHECK ((endpoint_id IS NULL) <> (session_id IS NULL))
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at)
  WHERE endpoint_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhook_deliveries_due_by_endpoint
  ON webhook_deliveries (endpoint_id, state, next_attempt_at) WHERE endpoint_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_session ON webhook_deliveries (session_id, state, seq)
  WHERE session_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_event ON webhook_deliveries (event_id);

CREATE TABLE IF NOT EXISTS webhook_attempts (
  delivery_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  via TEXT NOT NULL CHECK (via IN ('http', 'listen')),
  started_at TEXT NOT NULL,
  signature_t INTEGER NOT NULL,
  status INTEGER,
  duration_ms INTEGER,
  error TEXT,
  response_body TEXT,
  PRIMARY KEY (delivery_id, attempt)
) WITHOUT ROWID;

-- Deliveries live and die with their event, so /_sandbox/reset (which deletes events) needs no
-- knowledge of webhooks. Registrations and listen sessions are configuration and stay.
CREATE TRIGGER IF NOT EXISTS webhook_deliveries_follow_events AFTER DELETE ON events BEGIN
  DELETE FROM webhook_attempts
    WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE event_id = OLD.id);
  DELETE FROM webhook_deliveries WHERE event_id = OLD.id;
END;
`

/** Columns added since the tables first shipped: a data file written before gains them. */
const ADDED_COLUMNS = [
  // When a listener last connected (NULL: never), and when the partner ended the session.
  {table: 'webhook_listen_sessions', column: 'connected_at', type: 'INTEGER'},
  {table: 'webhook_listen_sessions', column: 'ended_at', type: 'INTEGER'},
]

/** Create the webhook tables in `database` if they are missing, and add columns they lack. */
export function applyWebhookSchema(database: Database): void {
  database.transaction(() => {
    database.db.exec(WEBHOOK_SCHEMA)
    for (const {table, column, type} of ADDED_COLUMNS) {
      const has = database.prepare<{name: string}>(
        `SELECT name FROM pragma_table_info('${table}') WHERE name = ?`,
      )
      if (has.get(column) === undefined) database.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`)
    }
  })
}
