import {ID_MAX_LENGTH, METADATA_LIMITS} from '../../contract/fields.js'
import {PAYMENT_METHOD_TYPES} from '../../contract/payment-methods.js'
import {PAYMENT_METHODS, TRANSACTION_STATUSES, TRANSACTION_TYPES} from '../../contract/transactions.js'
import {WALLET_STATUSES} from '../../contract/wallets.js'
import {column} from '../storage/column-rules.js'
import {addColumn, byPartner, type Migration, type Schema, sqlMigration} from '../storage/database.js'
import {MAX_ACCOUNTS_PER_USER} from './saved-methods.js'

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
    byPartner('wallets', {
      seq: column.seq,
      id: column.id('wal'),
      user_id: column.ref('users', 'usr'),
      currency: column.currency,
      status: column.oneOf(WALLET_STATUSES),
      label: column.text(50),
      available: column.amount,
      pending: column.amount,
      reserved: column.amount,
      limit_transaction: column.amount,
      limit_daily: column.amount,
      limit_monthly: column.amount,
      created_at: column.time,
      updated_at: column.time,
    }),
    byPartner(
      'transactions',
      {
        seq: column.seq,
        id: column.id('txn'),
        wallet_id: column.ref('wallets', 'wal'),
        type: column.oneOf(TRANSACTION_TYPES),
        status: column.oneOf(TRANSACTION_STATUSES),
        method: column.oneOf(PAYMENT_METHODS),
        amount: column.amount,
        currency: column.currency,
        fee: column.amount,
        net_amount: column.amount,
        source_wallet_id: column.ref('wallets', 'wal'),
        destination_wallet_id: column.ref('wallets', 'wal'),
        // A test method's id, a saved method's, or the paying wallet's: shown, never looked up.
        payment_method_id: column.text(ID_MAX_LENGTH),
        description: column.text(1000),
        metadata: column.json('object', METADATA_LIMITS.totalBytes + 1024),
        paired_id: column.ref('transactions', 'txn'),
        original_id: column.ref('transactions', 'txn'),
        refunded_amount: column.amount,
        failure_reason: column.text(500),
        outcome: column.oneOf(['complete', 'fail']),
        settles_at: column.ms,
        created_at: column.time,
        completed_at: column.time,
        estimated_completion: column.time,
        owner_kind: column.text(64),
        owner_id: column.text(ID_MAX_LENGTH),
      },
      {
        checks: [
          {
            what: 'it names an owner kind without an owner, or one without a kind',
            sql: '(r.owner_kind IS NULL) = (r.owner_id IS NULL)',
          },
          {
            what: "its currency is not its wallet's",
            sql: 'r.currency = (SELECT currency FROM wallets AS w WHERE w.id = r.wallet_id)',
          },
          {
            what: 'it is processing without a time to settle at and an outcome',
            sql: "r.status <> 'processing' OR (r.settles_at IS NOT NULL AND r.outcome IS NOT NULL)",
          },
        ],
      },
    ),
    byPartner('ledger_entries', {
      seq: column.seq,
      transaction_id: column.ref('transactions', 'txn'),
      // wal_…:bucket or external:…, checked with the balances (snapshots/rebuild.ts, checkLedger).
      account: column.text(80),
      currency: column.currency,
      amount: column.signedAmount,
      created_at: column.time,
      wallet_id: column.ref('wallets', 'wal'),
      available_after: column.amount,
      pending_after: column.amount,
      reserved_after: column.amount,
    }),
    byPartner('wallet_volumes', {
      wallet_id: column.ref('wallets', 'wal'),
      day: column.text(10, '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
      daily: column.amount,
      month: column.text(7, '[0-9][0-9][0-9][0-9]-[0-9][0-9]'),
      monthly: column.amount,
    }),
    byPartner('payment_methods', {
      seq: column.seq,
      id: column.id('pm'),
      user_id: column.ref('users', 'usr'),
      type: column.oneOf(PAYMENT_METHOD_TYPES),
      behaviour: column.oneOf(['succeed', 'decline', 'insufficient_funds', 'return']),
      brand: column.text(20),
      last4: column.text(4),
      bank_name: column.text(50),
      status: column.oneOf(['active']),
      created_at: column.time,
    }),
    byPartner(
      'bank_accounts',
      {
        seq: column.seq,
        id: column.id('ba'),
        user_id: column.ref('users', 'usr'),
        bank_name: column.text(50),
        last4: column.text(4),
        payment_method_id: column.ref('payment_methods', 'pm'),
        created_at: column.time,
      },
      {limits: [{per: 'user_id', max: MAX_ACCOUNTS_PER_USER}]},
    ),
  ],
  migrations: [OPENING_BALANCES, OWNERS, STATEMENTS],
}
