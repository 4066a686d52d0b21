import {ID_MAX_LENGTH, URL_MAX_LENGTH} from '../../contract/fields.js'
import {DELIVERY_STATUSES, isEventSelector} from '../../contract/webhooks.js'
import {column, MAX_SEQ} from '../storage/column-rules.js'
import {addColumn, byPartner, type Schema, sqlMigration} from '../storage/database.js'
import {WEBHOOK_CAP} from './store.js'
import {urlProblem} from './url-policy.js'

/** A signing secret as the sandbox makes them: whsec_ and 24 random bytes in base64url. */
const SECRET = column.code('whsec_', 'A-Za-z0-9_-', 32)
/** The events a registration or a session selects: a JSON array of event selectors. */
const SELECTORS = column.json('array', 100 * 110)

/** Why a JSON array of event selectors is not one a registration takes, or undefined. */
function selectorsProblem(json: string): string | undefined {
  const selectors = JSON.parse(json) as unknown[]
  const fine =
    selectors.length >= 1 &&
    selectors.length <= 100 &&
    selectors.every((s) => typeof s === 'string' && s.length <= 100 && isEventSelector(s))
  return fine ? undefined : 'its events are not 1 to 100 event names, prefix.* or *'
}

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
    byPartner(
      'webhook_endpoints',
      {
        seq: column.seq,
        id: column.id('whk'),
        url: column.text(URL_MAX_LENGTH),
        events: SELECTORS,
        secret: SECRET,
        previous_secret: SECRET,
        previous_secret_expires_at: column.ms,
        from_event_seq: column.int(0, MAX_SEQ),
        created_at: column.time,
        updated_at: column.time,
      },
      {
        keptByReset: 'registrations are configuration: a reset partner keeps receiving its new events',
        limits: [{per: 'partner_id', max: WEBHOOK_CAP}],
        checks: [
          {
            what: 'it has a previous secret without its end, or an end without one',
            sql: '(r.previous_secret IS NULL) = (r.previous_secret_expires_at IS NULL)',
          },
        ],
        // Where it may deliver, as a registration is checked: a restored one goes nowhere a new one could not.
        verify: (row, settings) =>
          urlProblem(String(row.url), settings)?.message ?? selectorsProblem(String(row.events)),
      },
    ),
    byPartner(
      'webhook_listen_sessions',
      {
        id: column.id('lsn'),
        listener_key: column.text(ID_MAX_LENGTH),
        secret: SECRET,
        events: SELECTORS,
        from_event_seq: column.int(0, MAX_SEQ),
        last_seen_at: column.ms,
        created_at: column.time,
        connected_at: column.ms,
        ended_at: column.ms,
      },
      {
        keptByReset: 'listen sessions are configuration, like registrations: a listener stays connected',
        verify: (row) => selectorsProblem(String(row.events)),
      },
    ),
    // A delivery is its event's partner's (it is written with the event's partner id).
    byPartner('webhook_deliveries', {
      seq: column.seq,
      id: column.id('dlv'),
      event_id: column.ref('events', 'evt'),
      endpoint_id: column.ref('webhook_endpoints', 'whk'),
      session_id: column.ref('webhook_listen_sessions', 'lsn'),
      // The registration's URL when it was made, shown only: a delivery goes to the registration's.
      url: column.text(URL_MAX_LENGTH),
      state: column.oneOf(DELIVERY_STATUSES),
      attempts: column.int(0, 100),
      failures: column.int(0, 100),
      next_attempt_at: column.ms,
      last_status: column.int(0, 999),
      last_error: column.text(2048),
      resend_of: column.ref('webhook_deliveries', 'dlv'),
      injected: column.text(200),
      created_at: column.time,
      completed_at: column.time,
    }),
    {
      name: 'webhook_attempts',
      tie: {parent: 'webhook_deliveries', key: 'id', column: 'delivery_id'},
      columns: {
        delivery_id: column.id('dlv'),
        attempt: column.int(1, 100),
        via: column.oneOf(['http', 'listen']),
        started_at: column.time,
        signature_t: column.int(0, 13_569_465_600),
        status: column.int(0, 999),
        duration_ms: column.int(0, 86_400_000),
        error: column.text(2048),
        response_body: column.text(4096),
        injected: column.text(200),
      },
    },
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
