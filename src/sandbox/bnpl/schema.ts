import type {Database} from '../database.js'

/**
 * The BNPL tables, kept apart from the core schema like the webhook ones: every statement is
 * idempotent, so a data file from before BNPL simply gains them. Amounts are TEXT integers in the
 * smallest unit; `collect_at` is sandbox-clock milliseconds, compared by the settlement tick.
 */
const BNPL_SCHEMA = `
CREATE TABLE IF NOT EXISTS bnpl_payments (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  wallet_id TEXT NOT NULL,
  merchant_name TEXT NOT NULL,
  description TEXT,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'completed', 'cancelled', 'failed')),
  failure_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT,
  cancelled_at TEXT,
  failed_at TEXT
);
CREATE INDEX IF NOT EXISTS bnpl_payments_by_partner ON bnpl_payments (partner_id, seq);
CREATE INDEX IF NOT EXISTS bnpl_payments_by_user ON bnpl_payments (user_id, status);

CREATE TABLE IF NOT EXISTS bnpl_installments (
  payment_id TEXT NOT NULL,
  number INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  amount TEXT NOT NULL,
  due_at TEXT NOT NULL,
  collect_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('scheduled', 'paid', 'failed', 'cancelled', 'refunded')),
  paid_at TEXT,
  transaction_id TEXT,
  refund_transaction_id TEXT,
  failure_reason TEXT,
  PRIMARY KEY (payment_id, number)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bnpl_installments_due ON bnpl_installments (collect_at)
  WHERE status = 'scheduled';
-- A refund asks whether a transaction is an instalment (its product alone may give it back).
CREATE INDEX IF NOT EXISTS bnpl_installments_by_transaction ON bnpl_installments (transaction_id)
  WHERE transaction_id IS NOT NULL;

-- BNPL records belong to their user, so /_sandbox/reset (which deletes users) needs no knowledge
-- of them.
CREATE TRIGGER IF NOT EXISTS bnpl_follows_users AFTER DELETE ON users BEGIN
  DELETE FROM bnpl_payments WHERE user_id = OLD.id;
  DELETE FROM bnpl_installments WHERE user_id = OLD.id;
END;
`

/** Create the BNPL tables in `database` if they are missing. */
export function applyBnplSchema(database: Database): void {
  database.transaction(() => database.db.exec(BNPL_SCHEMA))
}
