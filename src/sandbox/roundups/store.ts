import type {Roundup, RoundupCurrency, RoundupMultiplier, RoundupTransfer} from '../../contract/roundups.js'
import {jsonMajor} from '../http/json.js'
import type {Database} from '../storage/database.js'

/** The round-up tables' rows, the statements over them, and their records as the API shows them. */

export interface SettingsRow {
  user_id: string
  enabled: number
  multiplier: number
  max_roundup_amount: string
  destination_account_id: string | null
  currency: RoundupCurrency
  created_at: string
  updated_at: string
}

export interface RoundupRow {
  id: string
  user_id: string
  transaction_id: string
  merchant_name: string
  amount: string
  roundup_amount: string
  multiplier: number
  capped: number
  currency: RoundupCurrency
  status: Roundup['status']
  reason: Roundup['reason']
  transfer_id: string | null
  processed_at: string
}

export interface TransferRow {
  id: string
  partner_id: string
  user_id: string
  amount: string
  currency: RoundupCurrency
  roundup_count: number
  source_wallet_id: string
  destination_account_id: string
  destination_type: RoundupTransfer['destination_type']
  transaction_id: string
  status: RoundupTransfer['status']
  failure_reason: string | null
  created_at: string
  completed_at: string | null
}

/** Every statement of the round-up tables, prepared once. */
export function statements(database: Database) {
  return {
    settings: database.prepare<SettingsRow>('SELECT * FROM roundup_settings WHERE user_id = ?'),
    saveSettings: database.prepare(
      `INSERT INTO roundup_settings (user_id, partner_id, enabled, multiplier, max_roundup_amount,
         destination_account_id, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET enabled = excluded.enabled, multiplier = excluded.multiplier,
         max_roundup_amount = excluded.max_roundup_amount,
         destination_account_id = excluded.destination_account_id, currency = excluded.currency,
         updated_at = excluded.updated_at`,
    ),
    byTransaction: database.prepare<RoundupRow>(
      'SELECT * FROM roundups WHERE partner_id = ? AND transaction_id = ?',
    ),
    insertRoundup: database.prepare(
      `INSERT INTO roundups (id, partner_id, user_id, transaction_id, merchant_name, amount, roundup_amount,
         multiplier, capped, currency, status, reason, processed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    pending: database.prepare<RoundupRow>(
      "SELECT * FROM roundups WHERE user_id = ? AND status = 'pending' ORDER BY seq",
    ),
    markTransferred: database.prepare(
      "UPDATE roundups SET status = 'transferred', transfer_id = ? WHERE user_id = ? AND status = 'pending'",
    ),
    markPendingAgain: database.prepare(
      "UPDATE roundups SET status = 'pending', transfer_id = NULL WHERE transfer_id = ?",
    ),
    insertTransfer: database.prepare(
      `INSERT INTO roundup_transfers (id, partner_id, user_id, amount, currency, roundup_count, source_wallet_id,
         destination_account_id, destination_type, transaction_id, status, created_at, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    processingTransfers: database.prepare<TransferRow>(
      "SELECT * FROM roundup_transfers WHERE status = 'processing' AND partner_id = ? ORDER BY seq",
    ),
    processingOf: database.prepare<{n: number}>(
      "SELECT COUNT(*) AS n FROM roundup_transfers WHERE user_id = ? AND status = 'processing'",
    ),
    finishTransfer: database.prepare(
      'UPDATE roundup_transfers SET status = ?, failure_reason = ?, completed_at = ? WHERE id = ?',
    ),
  }
}

export type RoundupStatements = ReturnType<typeof statements>

export function toRoundup(row: RoundupRow, duplicate: boolean): Roundup {
  return {
    id: row.id,
    user_id: row.user_id,
    transaction_id: row.transaction_id,
    merchant_name: row.merchant_name,
    amount: jsonMajor(BigInt(row.amount), row.currency),
    roundup_amount: jsonMajor(BigInt(row.roundup_amount), row.currency),
    multiplier: row.multiplier as RoundupMultiplier,
    capped: row.capped === 1,
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    transfer_id: row.transfer_id,
    processed_at: row.processed_at,
    duplicate,
  }
}

export function toTransfer(row: TransferRow): RoundupTransfer {
  return {
    id: row.id,
    user_id: row.user_id,
    amount: jsonMajor(BigInt(row.amount), row.currency),
    currency: row.currency,
    roundup_count: row.roundup_count,
    source_wallet_id: row.source_wallet_id,
    destination_account_id: row.destination_account_id,
    destination_type: row.destination_type,
    transaction_id: row.transaction_id,
    status: row.status,
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    completed_at: row.completed_at,
  }
}
