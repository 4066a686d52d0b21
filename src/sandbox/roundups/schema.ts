import type {Database} from '../database.js'

/**
 * The round-up tables, kept apart from the core schema like the webhook ones: every statement is
 * idempotent, so a data file from before round-ups simply gains them. Amounts are TEXT integers in
 * the smallest unit of the row's currency.
 */
const ROUNDUP_SCHEMA = `
CREATE TABLE IF NOT EXISTS roundup_settings (
  user_id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  multiplier INTEGER NOT NULL,
  max_roundup_amount TEXT NOT NULL,
  destination_account_id TEXT,
  currency TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS roundups (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  merchant_name TEXT NOT NULL,
  amount TEXT NOT NULL,
  roundup_amount TEXT NOT NULL,
  multiplier INTEGER NOT NULL,
  capped INTEGER NOT NULL,
  currency TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'transferred', 'skipped')),
  reason TEXT,
  transfer_id TEXT,
  processed_at TEXT NOT NULL,
  -- One round-up per purchase: the caller's transaction_id is the key.
  UNIQUE (partner_id, transaction_id)
);
CREATE INDEX IF NOT EXISTS roundups_by_user ON roundups (user_id, status, seq);
CREATE INDEX IF NOT EXISTS roundups_by_transfer ON roundups (transfer_id) WHERE transfer_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS roundup_transfers (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  roundup_count INTEGER NOT NULL,
  source_wallet_id TEXT NOT NULL,
  destination_account_id TEXT NOT NULL,
  destination_type TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
  failure_reason TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX IF NOT EXISTS roundup_transfers_processing ON roundup_transfers (status)
  WHERE status = 'processing';
CREATE INDEX IF NOT EXISTS roundup_transfers_by_user ON roundup_transfers (user_id, seq);
CREATE INDEX IF NOT EXISTS roundup_transfers_by_transaction ON roundup_transfers (transaction_id);

-- Round-up records belong to their user, so /_sandbox/reset (which deletes users) needs no
-- knowledge of round-ups.
CREATE TRIGGER IF NOT EXISTS roundups_follow_users AFTER DELETE ON users BEGIN
  DELETE FROM roundup_settings WHERE user_id = OLD.id;
  DELETE FROM roundups WHERE user_id = OLD.id;
  DELETE FROM roundup_transfers WHERE user_id = OLD.id;
END;
`

/** Create the round-up tables in `database` if they are missing. */
export function applyRoundupSchema(database: Database): void {
  database.transaction(() => database.db.exec(ROUNDUP_SCHEMA))
}
