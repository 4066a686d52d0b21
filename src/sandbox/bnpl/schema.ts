import type {Schema} from '../database.js'

/**
 * The BNPL tables. Amounts are TEXT integers in the smallest unit; `collect_at` is sandbox-clock
 * milliseconds, compared by the clock's due work.
 */
const SQL = `
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
`

export const BNPL_SCHEMA: Schema = {
  name: 'bnpl',
  sql: SQL,
  tables: [
    {name: 'bnpl_payments', tie: {partnerColumn: 'partner_id'}},
    {name: 'bnpl_installments', tie: {parent: 'bnpl_payments', key: 'id', column: 'payment_id'}},
  ],
  migrations: [
    {
      // Reset follows the tables' ties now, not a trigger on users; a refund reads a transaction's
      // owner, not this table (no more lookup by transaction).
      version: 4,
      up: (database) =>
        database.db.exec(`
DROP TRIGGER IF EXISTS bnpl_follows_users;
DROP INDEX IF EXISTS bnpl_installments_by_transaction;
`),
    },
  ],
}
