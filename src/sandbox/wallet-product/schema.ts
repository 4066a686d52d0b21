import type {Owner, OwnerKind} from '../money/owners.js'
import {column} from '../storage/column-rules.js'
import {byPartner, type Schema, sqlMigration} from '../storage/database.js'

/** The wallet product's records: virtual cards, and the payments and P2P sends it made through the kernel. */
/**
 * A wallet payment owns its transaction, and a P2P send both halves of its transfer. Refunds take
 * them like any other: the product's records do not count refunds.
 */
export const paymentOwner = (paymentId: string): Owner => ({kind: 'walletsvc_payment', id: paymentId})
export const p2pOwner = (transferId: string): Owner => ({kind: 'walletsvc_p2p', id: transferId})
export const WALLET_PRODUCT_OWNERS: readonly OwnerKind[] = [
  {kind: 'walletsvc_payment'},
  {kind: 'walletsvc_p2p'},
]

export const WALLET_PRODUCT_SCHEMA: Schema = {
  name: 'wallet-product',
  sql: `
-- Never the full card number or the CVC: they are shown once, in the creation response.
CREATE TABLE IF NOT EXISTS virtual_cards (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  wallet_id TEXT NOT NULL,
  brand TEXT NOT NULL,
  last4 TEXT NOT NULL,
  exp_month INTEGER NOT NULL,
  exp_year INTEGER NOT NULL,
  status TEXT NOT NULL,
  label TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS walletsvc_payments (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  wallet_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  merchant_name TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS walletsvc_transfers (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  from_user_id TEXT NOT NULL,
  to_user_id TEXT NOT NULL,
  out_transaction_id TEXT NOT NULL,
  in_transaction_id TEXT NOT NULL,
  note TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
`,
  tables: [
    byPartner('virtual_cards', {
      id: column.id('card'),
      user_id: column.ref('users', 'usr'),
      wallet_id: column.ref('wallets', 'wal'),
      brand: column.text(20),
      last4: column.code('', '0-9', 4),
      exp_month: column.int(1, 12),
      exp_year: column.int(2000, 2400),
      status: column.text(20),
      label: column.text(50),
      created_at: column.time,
    }),
    byPartner('walletsvc_payments', {
      id: column.id('wpay'),
      user_id: column.ref('users', 'usr'),
      wallet_id: column.ref('wallets', 'wal'),
      transaction_id: column.ref('transactions', 'txn'),
      merchant_name: column.text(200),
      created_at: column.time,
    }),
    byPartner('walletsvc_transfers', {
      id: column.id('p2p'),
      from_user_id: column.ref('users', 'usr'),
      to_user_id: column.ref('users', 'usr'),
      out_transaction_id: column.ref('transactions', 'txn'),
      in_transaction_id: column.ref('transactions', 'txn'),
      note: column.text(280),
      created_at: column.time,
    }),
  ],
  migrations: [
    // Each payment and P2P send owns what it moved.
    sqlMigration(
      4,
      `
UPDATE transactions SET owner_kind = 'walletsvc_payment', owner_id = p.id
  FROM walletsvc_payments p WHERE transactions.id = p.transaction_id;
UPDATE transactions SET owner_kind = 'walletsvc_p2p', owner_id = t.id
  FROM walletsvc_transfers t WHERE transactions.id IN (t.out_transaction_id, t.in_transaction_id);
`,
    ),
  ],
}
