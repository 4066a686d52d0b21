import {ID_MAX_LENGTH} from '../../contract/fields.js'
import {ROUNDUP_CURRENCIES} from '../../contract/money/currencies.js'
import {ROUNDUP_MULTIPLIERS} from '../../contract/roundups.js'
import type {Owner, OwnerKind} from '../money/owners.js'
import {column} from '../storage/column-rules.js'
import {byPartner, type Schema, sqlMigration} from '../storage/database.js'

/** A multiplier is one the API takes. */
const MULTIPLIER = {
  what: `its multiplier is not one of ${ROUNDUP_MULTIPLIERS.join(', ')}`,
  sql: `r.multiplier IN (${ROUNDUP_MULTIPLIERS.join(', ')})`,
}

/** The round-up tables. Amounts are TEXT integers in the smallest unit of the row's currency. */
const SQL = `
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
`

/** A round-up transfer owns what it moved: both halves of a wallet transfer, or its ACH withdrawal. */
export const transferOwner = (transferId: string): Owner => ({kind: 'roundup_transfer', id: transferId})

export const TRANSFER_OWNER: OwnerKind = {
  kind: 'roundup_transfer',
  refusal: (transferId) => ({
    reason: `it is round-up transfer ${transferId}, which the round-ups product owns`,
    owner: {product: 'roundupsvc', transferId},
  }),
}

export const ROUNDUPS_SCHEMA: Schema = {
  name: 'roundups',
  sql: SQL,
  tables: [
    byPartner(
      'roundup_settings',
      {
        user_id: column.ref('users', 'usr'),
        enabled: column.flag,
        multiplier: column.int(1, 5),
        max_roundup_amount: column.amount,
        // A wallet or a bank account of the user's partner, looked up again at every transfer.
        destination_account_id: column.text(ID_MAX_LENGTH),
        currency: column.oneOf(ROUNDUP_CURRENCIES),
        created_at: column.time,
        updated_at: column.time,
      },
      {checks: [MULTIPLIER]},
    ),
    byPartner(
      'roundups',
      {
        seq: column.seq,
        id: column.id('rnd'),
        user_id: column.ref('users', 'usr'),
        // The caller's purchase: its own id, not a record of the sandbox.
        transaction_id: column.text(ID_MAX_LENGTH),
        merchant_name: column.text(200),
        amount: column.amount,
        roundup_amount: column.amount,
        multiplier: column.int(1, 5),
        capped: column.flag,
        currency: column.oneOf(ROUNDUP_CURRENCIES),
        status: column.oneOf(['pending', 'transferred', 'skipped']),
        reason: column.text(64),
        transfer_id: column.ref('roundup_transfers', 'rtr'),
        processed_at: column.time,
      },
      {checks: [MULTIPLIER]},
    ),
    byPartner('roundup_transfers', {
      seq: column.seq,
      id: column.id('rtr'),
      user_id: column.ref('users', 'usr'),
      amount: column.amount,
      currency: column.oneOf(ROUNDUP_CURRENCIES),
      roundup_count: column.int(0, 2 ** 31),
      source_wallet_id: column.ref('wallets', 'wal'),
      // Shown only: the wallet or bank account it went to when it was made.
      destination_account_id: column.text(ID_MAX_LENGTH),
      destination_type: column.oneOf(['wallet', 'bank_account']),
      transaction_id: column.ref('transactions', 'txn'),
      status: column.oneOf(['processing', 'completed', 'failed']),
      failure_reason: column.text(500),
      created_at: column.time,
      completed_at: column.time,
    }),
  ],
  migrations: [
    // Each transfer owns what it moved (a wallet transfer's incoming half is paired with the
    // outgoing one it records). Reset follows the tables' ties now, not a trigger on users; a
    // refund reads a transaction's owner, not this table (so no lookup by transaction is left).
    sqlMigration(
      4,
      `
UPDATE transactions SET owner_kind = 'roundup_transfer', owner_id = t.id
  FROM roundup_transfers t
  WHERE transactions.id = t.transaction_id
    OR (transactions.type = 'transfer_in' AND transactions.paired_id = t.transaction_id);
DROP TRIGGER IF EXISTS roundups_follow_users;
DROP INDEX IF EXISTS roundup_transfers_by_transaction;
`,
    ),
  ],
}
