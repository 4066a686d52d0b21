import {BNPL_INSTALLMENT_STATUSES, BNPL_INSTALLMENTS, BNPL_STATUSES} from '../../contract/bnpl.js'
import {FIAT_CURRENCIES} from '../../contract/money/currency-units.js'
import type {Owner, OwnerKind} from '../money/owners.js'
import {column} from '../storage/column-rules.js'
import {byPartner, type Schema, sqlMigration} from '../storage/database.js'

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

/** An instalment owns the payment that collected it; its id is its payment's and its number. */
export function installmentOwner(paymentId: string, number: number): Owner {
  return {kind: 'bnpl_installment', id: `${paymentId}/${number}`}
}

export const INSTALLMENT_OWNER: OwnerKind = {
  kind: 'bnpl_installment',
  refusal(ownerId) {
    const [paymentId = '', number = ''] = ownerId.split('/')
    return {
      reason: `it is instalment ${number} of BNPL payment ${paymentId}; cancel the payment to refund what was paid`,
      owner: {product: 'bnplsvc', paymentId, installment: Number(number)},
    }
  },
}

export const BNPL_SCHEMA: Schema = {
  name: 'bnpl',
  sql: SQL,
  tables: [
    byPartner('bnpl_payments', {
      seq: column.seq,
      id: column.id('bnpl'),
      user_id: column.ref('users', 'usr'),
      wallet_id: column.ref('wallets', 'wal'),
      merchant_name: column.text(200),
      description: column.text(500),
      amount: column.amount,
      currency: column.oneOf(FIAT_CURRENCIES),
      status: column.oneOf(BNPL_STATUSES),
      failure_reason: column.text(500),
      created_at: column.time,
      updated_at: column.time,
      completed_at: column.time,
      cancelled_at: column.time,
      failed_at: column.time,
    }),
    {
      name: 'bnpl_installments',
      tie: {parent: 'bnpl_payments', key: 'id', column: 'payment_id'},
      columns: {
        payment_id: column.id('bnpl'),
        number: column.int(1, BNPL_INSTALLMENTS),
        user_id: column.ref('users', 'usr'),
        amount: column.amount,
        due_at: column.time,
        collect_at: column.ms,
        status: column.oneOf(BNPL_INSTALLMENT_STATUSES),
        paid_at: column.time,
        transaction_id: column.ref('transactions', 'txn'),
        refund_transaction_id: column.ref('transactions', 'txn'),
        failure_reason: column.text(500),
      },
      checks: [
        {
          what: "its user is not its payment's",
          sql: 'r.user_id = (SELECT user_id FROM bnpl_payments AS p WHERE p.id = r.payment_id)',
        },
      ],
    },
  ],
  migrations: [
    // Each collected instalment owns its payment. Reset follows the tables' ties now, not a
    // trigger on users; a refund reads a transaction's owner, not this table (so no lookup by
    // transaction is left to index).
    sqlMigration(
      4,
      `
UPDATE transactions SET owner_kind = 'bnpl_installment', owner_id = i.payment_id || '/' || i.number
  FROM bnpl_installments i WHERE transactions.id = i.transaction_id;
DROP TRIGGER IF EXISTS bnpl_follows_users;
DROP INDEX IF EXISTS bnpl_installments_by_transaction;
`,
    ),
  ],
}
