import {addColumn, byPartner, type Migration, type Schema, sqlMigration} from '../database.js'

/**
 * The kernel's tables (docs/money.md): wallets and their balances, transaction records, the
 * double-entry ledger, volume counters for wallet limits, and the payment methods and bank-account
 * links that money is drawn from. Amounts are TEXT (exact integers, signed in ledger entries); the
 * balance columns of `wallets` cache the sums of their ledger entries.
 */
const SQL = `
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

CREATE TABLE IF NOT EXISTS transactions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  wallet_id TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  method TEXT,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  fee TEXT NOT NULL,
  net_amount TEXT NOT NULL,
  source_wallet_id TEXT,
  destination_wallet_id TEXT,
  payment_method_id TEXT,
  description TEXT,
  metadata TEXT,
  paired_id TEXT,
  original_id TEXT,
  refunded_amount TEXT NOT NULL DEFAULT '0',
  failure_reason TEXT,
  outcome TEXT,
  settles_at INTEGER,
  created_at TEXT NOT NULL,
  completed_at TEXT,
  estimated_completion TEXT,
  -- The product that moved the money, if one did (owners.ts): both, or neither.
  owner_kind TEXT,
  owner_id TEXT
);
CREATE INDEX IF NOT EXISTS transactions_by_partner ON transactions (partner_id, seq);
CREATE INDEX IF NOT EXISTS transactions_by_wallet ON transactions (wallet_id, seq);
CREATE INDEX IF NOT EXISTS transactions_due ON transactions (settles_at) WHERE status = 'processing';

-- An entry on a wallet's account names the wallet and the balance it left the wallet with, so
-- that a wallet's entries read as a statement (GET /wallets/{id}/ledger-entries).
CREATE TABLE IF NOT EXISTS ledger_entries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  partner_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  account TEXT NOT NULL,
  currency TEXT NOT NULL,
  amount TEXT NOT NULL,
  created_at TEXT NOT NULL,
  wallet_id TEXT,
  available_after TEXT,
  pending_after TEXT,
  reserved_after TEXT
);

CREATE TABLE IF NOT EXISTS wallet_volumes (
  wallet_id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  day TEXT NOT NULL,
  daily TEXT NOT NULL,
  month TEXT NOT NULL,
  monthly TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS payment_methods (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  type TEXT NOT NULL,
  behaviour TEXT NOT NULL,
  brand TEXT,
  last4 TEXT,
  bank_name TEXT,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payment_methods_by_user ON payment_methods (user_id, seq);

CREATE TABLE IF NOT EXISTS bank_accounts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  bank_name TEXT NOT NULL,
  last4 TEXT NOT NULL,
  payment_method_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bank_accounts_by_user ON bank_accounts (user_id, seq);

`

/**
 * Schema 1 to 2: wallets had a stored balance and no ledger. Give each funded wallet an opening
 * `adjustment` transaction and its two entries, so that every balance equals its ledger.
 */
const OPENING_BALANCES = sqlMigration(
  2,
  `
INSERT INTO transactions (id, partner_id, wallet_id, type, status, amount, currency, fee, net_amount,
  destination_wallet_id, description, created_at, completed_at)
SELECT 'txn_' || lower(hex(randomblob(12))), partner_id, id, 'adjustment', 'completed', available, currency,
  '0', available, id, 'Opening balance', created_at, created_at
FROM wallets WHERE available != '0';
INSERT INTO ledger_entries (partner_id, transaction_id, account, currency, amount, created_at)
SELECT partner_id, id, wallet_id || ':available', currency, amount, created_at
FROM transactions WHERE type = 'adjustment' AND description = 'Opening balance'
UNION ALL
SELECT partner_id, id, 'external:sandbox_funding', currency, '-' || amount, created_at
FROM transactions WHERE type = 'adjustment' AND description = 'Opening balance';
`,
)

/** Schema 3 to 4: a transaction names its owner; each product's own migration fills them in. */
const OWNERS: Migration = {
  version: 4,
  up(database) {
    addColumn(database, 'transactions', 'owner_kind', 'TEXT')
    addColumn(database, 'transactions', 'owner_id', 'TEXT')
  },
}

/**
 * Schema 4 to 5: ledger entries name their wallet and the balance they left it with. An older
 * file's entries get them by replaying each wallet's entries in order, from an empty wallet: one
 * pass over the ledger.
 */
const STATEMENTS: Migration = {
  version: 5,
  up(database) {
    for (const column of ['wallet_id', 'available_after', 'pending_after', 'reserved_after'])
      addColumn(database, 'ledger_entries', column, 'TEXT')
    const entries = database.prepare<{seq: number; account: string; amount: string}>(
      "SELECT seq, account, amount FROM ledger_entries WHERE account LIKE 'wal\\_%' ESCAPE '\\' ORDER BY seq",
    )
    const save = database.prepare(
      'UPDATE ledger_entries SET wallet_id = ?, available_after = ?, pending_after = ?, reserved_after = ? WHERE seq = ?',
    )
    const balances = new Map<string, Record<string, bigint>>()
    for (const entry of entries.all()) {
      const [wallet, bucket] = entry.account.split(':') as [string, string]
      const balance = balances.get(wallet) ?? {available: 0n, pending: 0n, reserved: 0n}
      balances.set(wallet, balance)
      balance[bucket] = (balance[bucket] ?? 0n) + BigInt(entry.amount)
      const {available, pending, reserved} = balance as Record<'available' | 'pending' | 'reserved', bigint>
      save.run(wallet, String(available), String(pending), String(reserved), entry.seq)
    }
  },
}

export const MONEY: Schema = {
  name: 'money',
  sql: SQL,
  indexes:
    'CREATE INDEX IF NOT EXISTS ledger_entries_by_wallet ON ledger_entries (wallet_id, seq) WHERE wallet_id IS NOT NULL;',
  tables: [
    'wallets',
    'transactions',
    'ledger_entries',
    'wallet_volumes',
    'payment_methods',
    'bank_accounts',
  ].map(byPartner),
  migrations: [OPENING_BALANCES, OWNERS, STATEMENTS],
}
