import {addColumn, type Schema, sqlMigration} from '../database.js'

/**
 * The webhook tables. Times the scheduler compares are integers (ms since the epoch); times shown
 * to users are ISO text.
 */
const SQL = `
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
  injected TEXT,
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
  injected TEXT,
  PRIMARY KEY (delivery_id, attempt)
) WITHOUT ROWID;
`

export const WEBHOOKS_SCHEMA: Schema = {
  name: 'webhooks',
  sql: SQL,
  tables: [
    {
      name: 'webhook_endpoints',
      tie: {partnerColumn: 'partner_id'},
      keptByReset: 'registrations are configuration: a reset partner keeps receiving its new events',
    },
    {
      name: 'webhook_listen_sessions',
      tie: {partnerColumn: 'partner_id'},
      keptByReset: 'listen sessions are configuration, like registrations: a listener stays connected',
    },
    // A delivery is its event's partner's (it is written with the event's partner id).
    {name: 'webhook_deliveries', tie: {partnerColumn: 'partner_id'}},
    {name: 'webhook_attempts', tie: {parent: 'webhook_deliveries', key: 'id', column: 'delivery_id'}},
  ],
  migrations: [
    {
      // When a listener last connected (NULL: never), and when the partner ended the session.
      version: 3,
      up: (database) => {
        addColumn(database, 'webhook_listen_sessions', 'connected_at', 'INTEGER')
        addColumn(database, 'webhook_listen_sessions', 'ended_at', 'INTEGER')
      },
    },
    // Reset follows the tables' ties now, not a trigger on events.
    sqlMigration(4, 'DROP TRIGGER IF EXISTS webhook_deliveries_follow_events'),
    {
      // What a delivery fault did to a delivery (a duplicate, a delay) and to an attempt (a failure, a tampered signature).
      version: 5,
      up: (database) => {
        addColumn(database, 'webhook_deliveries', 'injected', 'TEXT')
        addColumn(database, 'webhook_attempts', 'injected', 'TEXT')
      },
    },
  ],
}
