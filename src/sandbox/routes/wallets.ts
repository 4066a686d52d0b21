import type {StatementSync} from 'node:sqlite'
import {defaultWalletLimits, isSupportedCurrency, SUPPORTED_CURRENCIES} from '../../contract/currencies.js'
import {endpoints} from '../../contract/endpoints.js'
import {
  CreateWalletSchema,
  ListWalletsQuerySchema,
  type Wallet,
  type WalletList,
} from '../../contract/resources.js'
import {callerOf, type RouteSpec, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {newId} from '../ids.js'
import {jsonAmount} from '../json.js'
import {parseInput} from '../validation.js'

/** Page size of GET /wallets when `limit` is not given (the query accepts 1 to 100). */
export const DEFAULT_PAGE_SIZE = 20

interface WalletRow {
  seq: number
  id: string
  partner_id: string
  user_id: string
  currency: Wallet['currency']
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

function toWallet(row: WalletRow): Wallet {
  const available = BigInt(row.available)
  const pending = BigInt(row.pending)
  const reserved = BigInt(row.reserved)
  const wallet: Wallet = {
    id: row.id,
    userId: row.user_id,
    currency: row.currency,
    balance: {
      available: jsonAmount(available),
      pending: jsonAmount(pending),
      reserved: jsonAmount(reserved),
      total: jsonAmount(available + pending + reserved),
      currency: row.currency,
    },
    status: row.status,
    limits: {
      daily: jsonAmount(BigInt(row.limit_daily)),
      monthly: jsonAmount(BigInt(row.limit_monthly)),
      transaction: jsonAmount(BigInt(row.limit_transaction)),
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
  if (row.label !== null) wallet.label = row.label
  return wallet
}

// Cursors are opaque to clients: the position after which the next page starts.
function encodeCursor(seq: number): string {
  return Buffer.from(`wallets:${seq}`).toString('base64url')
}

function decodeCursor(cursor: string): number {
  const match = /^wallets:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (match?.[1] === undefined) {
    throw new ApiError('VALIDATION_ERROR', 'Invalid query: cursor is not one this sandbox issued', {
      field: 'cursor',
      issues: [{path: 'cursor', code: 'invalid_cursor', message: 'Unknown cursor'}],
    })
  }
  return Number(match[1])
}

function invalidCurrency(value: string): ApiError {
  return new ApiError('INVALID_CURRENCY', `Unsupported currency: ${value}`, {
    field: 'currency',
    value,
    supported: [...SUPPORTED_CURRENCIES],
  })
}

export function walletRoutes(ctx: SandboxContext): RouteSpec[] {
  const {database, events, limiter} = ctx
  const {db} = database
  const userPartner = db.prepare('SELECT partner_id FROM users WHERE id = ?')
  const byUserCurrency = db.prepare('SELECT id FROM wallets WHERE user_id = ? AND currency = ?')
  const byId = db.prepare('SELECT * FROM wallets WHERE id = ?')
  const insert = db.prepare(
    `INSERT INTO wallets (id, partner_id, user_id, currency, status, label, available, pending, reserved,
       limit_transaction, limit_daily, limit_monthly, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'active', ?, ?, '0', '0', ?, ?, ?, ?, ?) RETURNING *`,
  )
  // One statement per combination of filters, prepared once.
  const pages = new Map<string, StatementSync>()
  for (const byUser of [false, true]) {
    for (const byCurrency of [false, true]) {
      const where = ['partner_id = ?', 'seq > ?']
      if (byUser) where.push('user_id = ?')
      if (byCurrency) where.push('currency = ?')
      pages.set(
        `${byUser}/${byCurrency}`,
        db.prepare(`SELECT * FROM wallets WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`),
      )
    }
  }

  return [
    {
      endpoint: endpoints.createWallet,
      run(input): Wallet {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(CreateWalletSchema, input.body, 'request body')
        limiter.checkWalletCreation(partnerId)
        if (!isSupportedCurrency(body.currency)) throw invalidCurrency(body.currency)
        const owner = userPartner.get(body.userId) as {partner_id: string} | undefined
        if (owner === undefined || owner.partner_id !== partnerId) {
          throw new ApiError('INVALID_USER_ID', `No user ${body.userId}`, {
            field: 'userId',
            value: body.userId,
          })
        }
        const existing = byUserCurrency.get(body.userId, body.currency) as {id: string} | undefined
        if (existing !== undefined) {
          throw new ApiError(
            'WALLET_EXISTS',
            `User ${body.userId} already has a wallet in ${body.currency}`,
            {
              existingWalletId: existing.id,
              userId: body.userId,
              currency: body.currency,
            },
          )
        }
        const limits = defaultWalletLimits(body.currency)
        const now = new Date().toISOString()
        const wallet = database.transaction(() => {
          const row = insert.get(
            newId.wallet(),
            partnerId,
            body.userId,
            body.currency,
            body.label ?? null,
            BigInt(body.initialBalance ?? 0).toString(),
            limits.transaction.toString(),
            limits.daily.toString(),
            limits.monthly.toString(),
            now,
            now,
          ) as unknown as WalletRow
          const created = toWallet(row)
          events.record('wallet.created', partnerId, {
            id: created.id,
            userId: created.userId,
            currency: created.currency,
            status: created.status,
            createdAt: created.createdAt,
          })
          return created
        })
        limiter.noteWalletCreated(partnerId)
        return wallet
      },
    },
    {
      endpoint: endpoints.getWallet,
      run(input): Wallet {
        const partnerId = callerOf(input).partner.partnerId
        const id = input.params.id ?? ''
        const row = byId.get(id) as WalletRow | undefined
        if (row === undefined || row.partner_id !== partnerId) {
          throw new ApiError('NOT_FOUND', `No wallet ${id}`, {resource: 'wallet', id})
        }
        return toWallet(row)
      },
    },
    {
      endpoint: endpoints.listWallets,
      run(input): WalletList {
        const partnerId = callerOf(input).partner.partnerId
        const query = parseInput(ListWalletsQuerySchema, input.query, 'query')
        if (query.currency !== undefined && !isSupportedCurrency(query.currency)) {
          throw invalidCurrency(query.currency)
        }
        const after = query.cursor === undefined ? 0 : decodeCursor(query.cursor)
        const limit = query.limit ?? DEFAULT_PAGE_SIZE
        const params: (string | number)[] = [partnerId, after]
        if (query.userId !== undefined) params.push(query.userId)
        if (query.currency !== undefined) params.push(query.currency)
        const page = pages.get(`${query.userId !== undefined}/${query.currency !== undefined}`)!
        const rows = page.all(...params, limit + 1) as unknown as WalletRow[]
        const hasMore = rows.length > limit
        const shown = hasMore ? rows.slice(0, limit) : rows
        const last = shown.at(-1)
        return {
          wallets: shown.map(toWallet),
          hasMore,
          nextCursor: hasMore && last !== undefined ? encodeCursor(last.seq) : null,
        }
      },
    },
  ]
}
