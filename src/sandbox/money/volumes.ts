import type {SQLInputValue} from 'node:sqlite'
import {ApiError} from '../http/api-error.js'
import {jsonAmount} from '../http/json.js'
import type {Database, Statement} from '../storage/database.js'
import {RowWrite} from '../storage/rows.js'
import type {WalletState} from './ledger.js'

/** A wallet's volume in the current day and month of the sandbox clock, after a payment is counted. */
export interface Volume {
  day: string
  daily: bigint
  month: string
  monthly: bigint
}

/** A wallet's volume as stored in `wallet_volumes`: amounts as text. */
interface VolumeRow {
  day: string
  daily: string
  month: string
  monthly: string
}

type Limit = 'transaction' | 'daily' | 'monthly'

/** A volume held back, as its statement's values: wallet, partner, day, daily, month, monthly. */
const heldVolume = (values: readonly SQLInputValue[]): VolumeRow => ({
  day: values[2] as string,
  daily: values[3] as string,
  month: values[4] as string,
  monthly: values[5] as string,
})

/** Volumes kept in memory at most (as the ledger's wallets). */
const CACHED_VOLUMES = 10_000

/** What each wallet has paid out in the day and month of the sandbox clock, against its limits. */
export class WalletVolumes {
  readonly #volumeOf: Statement<VolumeRow>
  readonly #save: RowWrite
  /**
   * The volumes read or counted lately, as the data file holds them (null: the wallet has none
   * yet), emptied whenever the file may hold otherwise (Database.holds), as the ledger's wallets.
   */
  readonly #cache = new Map<string, VolumeRow | null>()

  constructor(private readonly database: Database) {
    database.holds({forget: () => this.#cache.clear()})
    // A volume counted in the open group is held back (RowWrite): #read looks among those first.
    this.#volumeOf = database.prepare<VolumeRow>(
      'SELECT day, daily, month, monthly FROM wallet_volumes WHERE wallet_id = ?',
      {heldRowsReadFirst: true},
    )
    this.#save = new RowWrite(
      database,
      `INSERT INTO wallet_volumes (wallet_id, partner_id, day, daily, month, monthly) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (wallet_id) DO UPDATE SET
         day = excluded.day, daily = excluded.daily, month = excluded.month, monthly = excluded.monthly`,
      0,
    )
  }

  /** The wallet's volume once `amount` is counted, or the limit it would break. */
  limits(wallet: WalletState, amount: bigint, nowIso: string): Volume | ApiError {
    const tooLarge = (limit: Limit, maximum: bigint, used?: bigint) => {
      const details: Record<string, unknown> = {limit, maximum: jsonAmount(maximum)}
      if (used !== undefined) details.used = jsonAmount(used)
      Object.assign(details, {currency: wallet.currency, walletId: wallet.id})
      const what = limit === 'transaction' ? 'the per-transaction limit' : `the ${limit} limit`
      return new ApiError('AMOUNT_TOO_LARGE', `Amount exceeds ${what} of wallet ${wallet.id}`, details)
    }
    if (amount > wallet.limits.transaction) return tooLarge('transaction', wallet.limits.transaction)
    const day = nowIso.slice(0, 10)
    const month = nowIso.slice(0, 7)
    const row = this.#read(wallet.id)
    const daily = row?.day === day ? BigInt(row.daily) : 0n
    const monthly = row?.month === month ? BigInt(row.monthly) : 0n
    if (daily + amount > wallet.limits.daily) return tooLarge('daily', wallet.limits.daily, daily)
    if (monthly + amount > wallet.limits.monthly) return tooLarge('monthly', wallet.limits.monthly, monthly)
    return {day, daily: daily + amount, month, monthly: monthly + amount}
  }

  /** The volume once `amount` is counted: AMOUNT_TOO_LARGE when it breaks a limit. */
  require(wallet: WalletState, amount: bigint, nowIso: string): Volume {
    const volume = this.limits(wallet, amount, nowIso)
    if (volume instanceof ApiError) throw volume
    return volume
  }

  count(wallet: WalletState, v: Volume): void {
    const row = {day: v.day, daily: v.daily.toString(), month: v.month, monthly: v.monthly.toString()}
    this.#save.run(wallet.id, wallet.partnerId, row.day, row.daily, row.month, row.monthly)
    this.#remember(wallet.id, row)
  }

  #read(walletId: string): VolumeRow | undefined {
    const cached = this.#cache.get(walletId)
    if (cached !== undefined) return cached ?? undefined
    const held = this.database.held?.latest(this.#save, (values) => values[0] === walletId)
    const row = held === undefined ? this.#volumeOf.get(walletId) : heldVolume(held)
    this.#remember(walletId, row ?? null)
    return row
  }

  #remember(walletId: string, row: VolumeRow | null): void {
    if (this.#cache.size >= CACHED_VOLUMES && !this.#cache.has(walletId))
      this.#cache.delete(this.#cache.keys().next().value!)
    this.#cache.set(walletId, row)
  }
}
