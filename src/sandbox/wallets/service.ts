import type {z} from 'zod'
import {defaultWalletLimits, isSupportedCurrency} from '../../contract/money/currencies.js'
import type {
  Balance,
  CreateWalletSchema,
  LedgerEntryList,
  ListWalletsQuerySchema,
  UpdateWalletSchema,
  Wallet,
  WalletList,
} from '../../contract/wallets.js'
import type {SandboxContext} from '../context.js'
import {ApiError, invalidCurrency} from '../http/api-error.js'
import {PagedList} from '../http/pagination.js'
import {supportedCurrency} from '../money/checks.js'
import {
  toBalance,
  toLedgerEntry,
  toWallet,
  type WalletEntryRow,
  type WalletRow,
  type WalletState,
  walletFromRow,
} from '../money/ledger.js'
import {newId} from '../storage/ids.js'

type CreateWallet = z.output<typeof CreateWalletSchema>
type UpdateWallet = z.output<typeof UpdateWalletSchema>
type ListWalletsQuery = z.output<typeof ListWalletsQuerySchema>

/**
 * Status changes PATCH /wallets/{id} allows (docs/money.md). `closed` is final, and
 * `pending_verification` is set by the service alone, never requested.
 */
const TRANSITIONS: Record<Wallet['status'], readonly Wallet['status'][]> = {
  pending_verification: ['active', 'closed'],
  active: ['suspended', 'frozen', 'closed'],
  suspended: ['active', 'frozen', 'closed'],
  frozen: ['active', 'suspended', 'closed'],
  closed: [],
}

/** The wallets of each partner's users: opening, reading, changing and listing them. */
export class WalletService {
  readonly #list: PagedList<WalletRow, 'userId' | 'currency'>
  readonly #entries: PagedList<WalletEntryRow, 'walletId'>

  constructor(
    private readonly deps: Pick<
      SandboxContext,
      'database' | 'events' | 'limiter' | 'clock' | 'money' | 'tenants' | 'cursors'
    >,
  ) {
    this.#list = new PagedList(deps.database, deps.cursors, {
      name: 'wallets',
      table: 'wallets',
      order: 'oldest first',
      filters: {userId: 'user_id = ?', currency: 'currency = ?'},
    })
    this.#entries = new PagedList(deps.database, deps.cursors, {
      name: 'ledger-entries',
      table: 'ledger_entries',
      order: 'newest first',
      filters: {walletId: 'wallet_id = ?'},
    })
  }

  /** A new active wallet for one of the partner's users, funded with its initial balance if any. */
  create(partnerId: string, body: CreateWallet): Wallet {
    const {database, events, limiter, clock, money, tenants} = this.deps
    limiter.checkWalletCreation(partnerId)
    const currency = supportedCurrency(body.currency)
    tenants.requireUser(partnerId, body.userId, {field: 'userId'})
    const existing = money.ledger.walletOfUser(body.userId, currency, partnerId)
    if (existing !== undefined) {
      throw new ApiError('WALLET_EXISTS', `User ${body.userId} already has a wallet in ${body.currency}`, {
        existingWalletId: existing.id,
        userId: body.userId,
        currency: body.currency,
      })
    }
    const at = clock.now(partnerId)
    const wallet = database.transaction(() => {
      const state = money.ledger.open({
        id: newId.wallet(),
        partnerId,
        userId: body.userId,
        currency,
        label: body.label ?? null,
        limits: defaultWalletLimits(currency),
        createdAt: at.toISOString(),
      })
      events.record(
        'wallet.created',
        partnerId,
        {
          id: state.id,
          userId: state.userId,
          currency: state.currency,
          status: state.status,
          createdAt: state.createdAt,
        },
        at,
      )
      // The initial balance is money like any other: an adjustment posted to the ledger.
      const initial = body.initialBalance ?? 0n
      if (initial > 0n) money.fund(state, initial, at)
      return toWallet(state)
    })
    limiter.noteWalletCreated(partnerId)
    return wallet
  }

  /** The partner's wallet `id`. */
  get(partnerId: string, id: string): Wallet {
    return toWallet(this.deps.money.wallet(id, partnerId))
  }

  /** The balance of the partner's wallet `id`. */
  balance(partnerId: string, id: string): Balance {
    return toBalance(this.deps.money.wallet(id, partnerId))
  }

  /** A page of the ledger entries of the partner's wallet `id`, newest first, each with the balance it left. */
  entries(
    partnerId: string,
    id: string,
    query: {cursor?: string | undefined; limit?: number | undefined},
  ): LedgerEntryList {
    const wallet = this.deps.money.wallet(id, partnerId)
    const {rows, hasMore, nextCursor} = this.#entries.page(partnerId, {walletId: wallet.id}, query)
    return {entries: rows.map(toLedgerEntry), hasMore, nextCursor}
  }

  /** A change of label, status or limits, within the allowed status transitions. */
  update(partnerId: string, id: string, body: UpdateWallet): Wallet {
    const {database, clock, money} = this.deps
    return database.transaction(() => {
      const wallet = money.wallet(id, partnerId)
      const from = wallet.status
      const to = body.status ?? from
      const refuse = (reason: string, extra: Record<string, unknown> = {}) =>
        new ApiError(
          'INVALID_STATE_TRANSITION',
          `Wallet ${wallet.id} cannot go from ${from} to ${to}: ${reason}`,
          {
            walletId: wallet.id,
            from,
            to,
            reason,
            ...extra,
          },
        )
      if (from === 'closed') throw refuse('a closed wallet is final and cannot change')
      if (to !== from && !TRANSITIONS[from].includes(to)) {
        throw refuse(`allowed from ${from}: ${TRANSITIONS[from].join(', ') || 'none'}`)
      }
      if (to === 'closed') {
        const total = wallet.available + wallet.pending + wallet.reserved
        if (total !== 0n) throw refuse('its balance must be zero first', {balance: toBalance(wallet)})
        if (money.records.awaitsSettlement(wallet.id)) {
          throw refuse('a payment of this wallet has not settled yet')
        }
      }
      const limits = {...wallet.limits, ...body.limits}
      if (limits.transaction > limits.daily || limits.daily > limits.monthly) {
        throw new ApiError(
          'VALIDATION_ERROR',
          'Invalid request body: limits: transaction must not exceed daily, nor daily exceed monthly',
          {
            field: 'limits',
            issues: [
              {
                path: 'limits',
                code: 'inconsistent_limits',
                message: 'Expected transaction <= daily <= monthly',
              },
            ],
          },
        )
      }
      const next: WalletState = {
        ...wallet,
        status: to,
        label: body.label === undefined ? wallet.label : body.label,
        limits,
        updatedAt: clock.now(partnerId).toISOString(),
      }
      money.ledger.saveWallet(next)
      return toWallet(next)
    })
  }

  /** A page of the partner's wallets, oldest first, by user and currency when asked. */
  list(partnerId: string, query: ListWalletsQuery): WalletList {
    if (query.currency !== undefined && !isSupportedCurrency(query.currency)) {
      throw invalidCurrency(query.currency)
    }
    const {rows, hasMore, nextCursor} = this.#list.page(partnerId, query, query)
    return {wallets: rows.map((row) => toWallet(walletFromRow(row))), hasMore, nextCursor}
  }
}
