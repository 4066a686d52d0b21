import type {SQLInputValue} from 'node:sqlite'
import type {Currency} from '../../contract/money/currencies.js'
import type {Balance, LedgerEntry, Wallet} from '../../contract/wallets.js'
import {jsonAmount} from '../http/json.js'
import type {Database, Statement} from '../storage/database.js'
import {RowsInsert, RowWrite} from '../storage/rows.js'

/**
 * The double-entry ledger. Every balance change is a posting: entries on accounts that sum to zero,
 * written with the change's transaction record and events in one database transaction. A wallet has
 * three accounts (its buckets); money enters and leaves through external accounts. The balance
 * columns of `wallets` are a cache of the sums of their entries, updated by the same posting.
 */

export type Bucket = 'available' | 'pending' | 'reserved'

/** Counterparties outside the sandbox's wallets, one account each per partner and currency. */
export type ExternalAccount =
  | 'card_network' // cards, Apple Pay, Google Pay
  | 'bank' // ACH and wire
  | 'crypto_network'
  | 'fees' // the platform's processing fees
  | 'merchants' // wallet-product payments
  | 'sandbox_funding' // initial balances of sandbox wallets

export type Posting =
  | {wallet: WalletState; bucket: Bucket; amount: bigint}
  | {external: ExternalAccount; amount: bigint}

export interface WalletRow {
  seq: number
  id: string
  partner_id: string
  user_id: string
  currency: Currency
  status: Wallet['status']
  label: string | null
  available: string
  pending: string
  reserved: string
  limit_transaction: string
  limit_daily: string
  limit_monthly: string
  created_at: string
  updated_at: string
}

/** A wallet as the money code works on it: amounts as bigint, balances changed only by `Ledger.post`. */
export interface WalletState {
  seq: number
  id: string
  partnerId: string
  userId: string
  currency: Currency
  status: Wallet['status']
  label: string | null
  available: bigint
  pending: bigint
  reserved: bigint
  limits: {transaction: bigint; daily: bigint; monthly: bigint}
  createdAt: string
  updatedAt: string
}

export function walletFromRow(row: WalletRow): WalletState {
  return {
    seq: row.seq,
    id: row.id,
    partnerId: row.partner_id,
    userId: row.user_id,
    currency: row.currency,
    status: row.status,
    label: row.label,
    available: BigInt(row.available),
    pending: BigInt(row.pending),
    reserved: BigInt(row.reserved),
    limits: {
      transaction: BigInt(row.limit_transaction),
      daily: BigInt(row.limit_daily),
      monthly: BigInt(row.limit_monthly),
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export function toBalance(wallet: WalletState): Balance {
  return {
    available: jsonAmount(wallet.available),
    pending: jsonAmount(wallet.pending),
    reserved: jsonAmount(wallet.reserved),
    total: jsonAmount(wallet.available + wallet.pending + wallet.reserved),
    currency: wallet.currency,
  }
}

export function toWallet(wallet: WalletState): Wallet {
  const out: Wallet = {
    id: wallet.id,
    userId: wallet.userId,
    currency: wallet.currency,
    balance: toBalance(wallet),
    status: wallet.status,
    limits: {
      daily: jsonAmount(wallet.limits.daily),
      monthly: jsonAmount(wallet.limits.monthly),
      transaction: jsonAmount(wallet.limits.transaction),
    },
    createdAt: wallet.createdAt,
    updatedAt: wallet.updatedAt,
  }
  if (wallet.label !== null) out.label = wallet.label
  return out
}

/** The ledger account name of an entry: `wal_…:available` or `external:bank`. */
export function accountName(posting: Posting): string {
  return 'wallet' in posting ? `${posting.wallet.id}:${posting.bucket}` : `external:${posting.external}`
}

/** A ledger entry on one of a wallet's accounts, with the balance it left the wallet with. */
export interface WalletEntryRow {
  seq: number
  partner_id: string
  transaction_id: string
  account: string
  currency: Currency
  amount: string
  created_at: string
  wallet_id: string
  available_after: string
  pending_after: string
  reserved_after: string
}

/** A wallet's entry as the sandbox answers it: signed, with the whole balance after it. */
export function toLedgerEntry(row: WalletEntryRow): LedgerEntry {
  const [available, pending, reserved] = [row.available_after, row.pending_after, row.reserved_after].map(
    BigInt,
  )
  return {
    transactionId: row.transaction_id,
    bucket: row.account.slice(row.account.indexOf(':') + 1) as Bucket,
    amount: jsonAmount(BigInt(row.amount)),
    currency: row.currency,
    balanceAfter: {
      available: jsonAmount(available!),
      pending: jsonAmount(pending!),
      reserved: jsonAmount(reserved!),
      total: jsonAmount(available! + pending! + reserved!),
      currency: row.currency,
    },
    createdAt: row.created_at,
  }
}

/** Wallets kept in memory at most: those of a busy sandbox's recent transfers, never all of a big one. */
const CACHED_WALLETS = 10_000

/** A copy of `w` that the copy's owner may change freely. */
const copyOf = (w: WalletState): WalletState => ({...w, limits: {...w.limits}})

export class Ledger {
  /**
   * The wallets read or written lately, as the data file holds them: a transfer reads both of its
   * wallets, and the next transfer from either would read them again. Every write of a wallet goes
   * through this class and updates its entry; what may change the file otherwise (a rollback, a
   * partner's rows deleted, a restored file) empties it (Database.holds).
   */
  readonly #cache = new Map<string, WalletState>()
  private readonly byId: Statement<WalletRow>
  private readonly byUserCurrency: Statement<WalletRow>
  private readonly byUser: Statement<WalletRow>
  private readonly insertEntries: RowsInsert
  private readonly saveBalances: RowWrite
  private readonly insertWallet: Statement<WalletRow>
  private readonly saveSettings: Statement

  constructor(database: Database) {
    database.holds({forget: () => this.#cache.clear()})
    this.byId = database.prepare<WalletRow>('SELECT * FROM wallets WHERE id = ?')
    this.byUserCurrency = database.prepare<WalletRow>(
      'SELECT * FROM wallets WHERE user_id = ? AND currency = ? AND partner_id = ?',
    )
    this.byUser = database.prepare<WalletRow>(
      'SELECT * FROM wallets WHERE user_id = ? AND partner_id = ? ORDER BY seq',
    )
    this.insertEntries = new RowsInsert(
      database,
      `INSERT INTO ledger_entries (partner_id, transaction_id, account, currency, amount, created_at,
         wallet_id, available_after, pending_after, reserved_after)`,
      10,
    )
    this.saveBalances = new RowWrite(
      database,
      'UPDATE wallets SET available = ?, pending = ?, reserved = ?, updated_at = ? WHERE id = ?',
      4,
    )
    this.insertWallet = database.prepare<WalletRow>(
      `INSERT INTO wallets (id, partner_id, user_id, currency, status, label, available, pending, reserved,
         limit_transaction, limit_daily, limit_monthly, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'active', ?, '0', '0', '0', ?, ?, ?, ?, ?) RETURNING *`,
    )
    this.saveSettings = database.prepare(
      `UPDATE wallets SET label = ?, status = ?, limit_transaction = ?, limit_daily = ?, limit_monthly = ?,
         updated_at = ? WHERE id = ?`,
    )
  }

  /** A new, empty, active wallet; its balance changes only by postings. */
  open(
    w: Pick<WalletState, 'id' | 'partnerId' | 'userId' | 'currency' | 'label' | 'limits' | 'createdAt'>,
  ): WalletState {
    const {limits} = w
    return this.#remember(
      this.insertWallet.get(
        w.id,
        w.partnerId,
        w.userId,
        w.currency,
        w.label,
        limits.transaction.toString(),
        limits.daily.toString(),
        limits.monthly.toString(),
        w.createdAt,
        w.createdAt,
      )!,
    )
  }

  /** `row` as the wallet's cached state; returns a copy for the caller. */
  #remember(row: WalletRow): WalletState {
    const wallet = walletFromRow(row)
    if (this.#cache.size >= CACHED_WALLETS && !this.#cache.has(wallet.id))
      this.#cache.delete(this.#cache.keys().next().value!)
    this.#cache.set(wallet.id, wallet)
    return copyOf(wallet)
  }

  /** Store a wallet's label, status and limits (never its balances: those are the postings'). */
  saveWallet(w: WalletState): void {
    const {limits} = w
    this.saveSettings.run(
      w.label,
      w.status,
      limits.transaction.toString(),
      limits.daily.toString(),
      limits.monthly.toString(),
      w.updatedAt,
      w.id,
    )
    const cached = this.#cache.get(w.id)
    if (cached !== undefined) {
      Object.assign(cached, {label: w.label, status: w.status, limits: {...limits}, updatedAt: w.updatedAt})
    }
  }

  /** The wallet `id` of `partnerId`, or undefined (another partner's wallet does not exist for it). */
  wallet(id: string, partnerId: string): WalletState | undefined {
    const cached = this.#cache.get(id)
    if (cached !== undefined) return cached.partnerId === partnerId ? copyOf(cached) : undefined
    const row = this.byId.get(id)
    if (row === undefined) return undefined
    const wallet = this.#remember(row)
    return wallet.partnerId === partnerId ? wallet : undefined
  }

  /** The user's wallet in `currency` (a user holds at most one per currency), or undefined. */
  walletOfUser(userId: string, currency: string, partnerId: string): WalletState | undefined {
    const row = this.byUserCurrency.get(userId, currency, partnerId)
    return row === undefined ? undefined : walletFromRow(row)
  }

  /** The user's wallets, oldest first. */
  walletsOfUser(userId: string, partnerId: string): WalletState[] {
    return this.byUser.all(userId, partnerId).map(walletFromRow)
  }

  /**
   * Write one posting for `transactionId`: the entries must sum to zero and leave no wallet bucket
   * negative. Callers check funds first and answer with a business error; a failure here is a bug,
   * and the surrounding database transaction rolls everything back.
   */
  post(partnerId: string, transactionId: string, currency: Currency, postings: Posting[], now: string): void {
    let sum = 0n
    for (const p of postings) sum += p.amount
    if (sum !== 0n) throw new Error(`unbalanced posting for ${transactionId}: entries sum to ${sum}`)
    const touched = new Set<WalletState>()
    // All in one statement, in the order of the postings.
    const entries: SQLInputValue[][] = []
    for (const p of postings) {
      if (p.amount === 0n) continue
      const entry = [partnerId, transactionId, accountName(p), currency, p.amount.toString(), now]
      if (!('wallet' in p)) {
        entries.push([...entry, null, null, null, null])
        continue
      }
      const w = p.wallet
      if (w.currency !== currency) throw new Error(`posting in ${currency} to a ${w.currency} wallet`)
      w[p.bucket] += p.amount
      if (w[p.bucket] < 0n) throw new Error(`posting would overdraw ${accountName(p)}`)
      touched.add(w)
      // The balance the entry left the wallet with: its statement line (docs/money.md#the-ledger).
      entries.push([...entry, w.id, `${w.available}`, `${w.pending}`, `${w.reserved}`])
    }
    if (entries.length > 0) this.insertEntries.hold(entries)
    for (const w of touched) {
      w.updatedAt = now
      this.saveBalances.run(w.available.toString(), w.pending.toString(), w.reserved.toString(), now, w.id)
      const cached = this.#cache.get(w.id)
      if (cached !== undefined) {
        Object.assign(cached, {
          available: w.available,
          pending: w.pending,
          reserved: w.reserved,
          updatedAt: now,
        })
      }
    }
  }
}
