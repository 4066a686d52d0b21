import {randomInt} from 'node:crypto'
import type {Currency} from '../../contract/currencies.js'
import {endpoints} from '../../contract/endpoints.js'
import {
  CreateCardRequestSchema,
  type Eligibility,
  type P2PTransfer,
  type UserBalance,
  type VirtualCard,
  type WalletPayment,
} from '../../contract/wallet-product.js'
import {callerOf, type OperationInput, type RouteSpec, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {randomHex} from '../ids.js'
import {jsonAmount} from '../json.js'
import {EligibilityInput, P2PInput, WalletPaymentInput} from '../transactions/amounts.js'
import {toBalance, type WalletRow, type WalletState, walletFromRow} from '../transactions/ledger.js'
import {parseInput} from '../validation.js'

/** The Luhn check digit that completes `digits` (a card number without its last digit). */
export function luhnCheckDigit(digits: string): string {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    // Doubling starts with the rightmost digit, since the check digit will follow it.
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return String((10 - (sum % 10)) % 10)
}

/** A 16-digit test Visa number: a sandbox BIN, random digits, and a valid Luhn check digit. */
export function testVisaNumber(): string {
  let body = '400000'
  while (body.length < 15) body += String(randomInt(10))
  return body + luhnCheckDigit(body)
}

/** The wallet product (`/walletsvc`): eligibility, payments, balances, virtual cards, P2P. */
export function walletProductRoutes(ctx: SandboxContext): RouteSpec[] {
  const {money, clock, database} = ctx
  const {db} = database
  const userPartner = db.prepare('SELECT partner_id FROM users WHERE id = ?')
  const walletOf = db.prepare('SELECT * FROM wallets WHERE user_id = ? AND currency = ? AND partner_id = ?')
  const walletsOf = db.prepare('SELECT * FROM wallets WHERE user_id = ? AND partner_id = ? ORDER BY seq')
  const insertPayment = db.prepare(
    `INSERT INTO walletsvc_payments (id, partner_id, user_id, wallet_id, transaction_id, merchant_name, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertTransfer = db.prepare(
    `INSERT INTO walletsvc_transfers (id, partner_id, from_user_id, to_user_id, out_transaction_id,
       in_transaction_id, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertCard = db.prepare(
    `INSERT INTO virtual_cards (id, partner_id, user_id, wallet_id, brand, last4, exp_month, exp_year, status,
       label, created_at) VALUES (?, ?, ?, ?, 'visa', ?, ?, ?, 'active', ?, ?)`,
  )

  function isUser(userId: string, partnerId: string): boolean {
    return (userPartner.get(userId) as {partner_id: string} | undefined)?.partner_id === partnerId
  }

  /** A user named in a body: INVALID_USER_ID (400) when unknown, as POST /wallets does. */
  function bodyUser(userId: string, partnerId: string, field: string): void {
    if (!isUser(userId, partnerId)) {
      throw new ApiError('INVALID_USER_ID', `No user ${userId}`, {field, value: userId})
    }
  }

  /** The user of the path: 404 when unknown. */
  function pathUser(input: OperationInput): {partnerId: string; userId: string} {
    const partnerId = callerOf(input).partner.partnerId
    const userId = input.params.id ?? ''
    if (!isUser(userId, partnerId))
      throw new ApiError('NOT_FOUND', `No user ${userId}`, {resource: 'user', id: userId})
    return {partnerId, userId}
  }

  function findWallet(userId: string, currency: Currency, partnerId: string): WalletState | undefined {
    const row = walletOf.get(userId, currency, partnerId) as WalletRow | undefined
    return row === undefined ? undefined : walletFromRow(row)
  }

  function requireWallet(userId: string, currency: Currency, partnerId: string): WalletState {
    const wallet = findWallet(userId, currency, partnerId)
    if (wallet === undefined) {
      throw new ApiError('NOT_FOUND', `User ${userId} has no ${currency} wallet`, {
        resource: 'wallet',
        userId,
        currency,
      })
    }
    return wallet
  }

  return [
    {
      endpoint: endpoints.checkEligibility,
      run(input): Eligibility {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(EligibilityInput, input.body, 'request body')
        bodyUser(body.userId, partnerId, 'userId')
        const currency = money.currency(body.currency)
        const wallet = findWallet(body.userId, currency, partnerId)
        const reasons: Eligibility['reasons'] = []
        if (money.minimumProblem(body.amount, currency) !== undefined) reasons.push('AMOUNT_TOO_SMALL')
        if (wallet === undefined) {
          reasons.push('NO_WALLET')
        } else {
          if (money.activeProblem(wallet) !== undefined) reasons.push('WALLET_NOT_ACTIVE')
          if (money.limits(wallet, body.amount, clock.now().toISOString()) instanceof ApiError) {
            reasons.push('AMOUNT_TOO_LARGE')
          }
          if (money.fundsProblem(wallet, body.amount) !== undefined) reasons.push('INSUFFICIENT_FUNDS')
        }
        return {
          eligible: reasons.length === 0,
          userId: body.userId,
          walletId: wallet?.id ?? null,
          amount: jsonAmount(body.amount),
          currency,
          available: jsonAmount(wallet?.available ?? 0n),
          reasons,
        }
      },
    },
    {
      endpoint: endpoints.processPayment,
      run(input): WalletPayment {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(WalletPaymentInput, input.body, 'request body')
        bodyUser(body.userId, partnerId, 'userId')
        const currency = money.currency(body.currency)
        const problem = money.minimumProblem(body.amount, currency)
        if (problem !== undefined) throw problem
        return database.transaction(() => {
          const wallet = requireWallet(body.userId, currency, partnerId)
          const now = clock.now()
          const description =
            body.description ?? (body.merchantName === undefined ? null : `Payment to ${body.merchantName}`)
          const txn = money.pay(wallet, body.amount, now, {description})
          const payment: WalletPayment = {
            id: `wpay_${randomHex(12)}`,
            userId: body.userId,
            walletId: wallet.id,
            transactionId: txn.id,
            amount: jsonAmount(body.amount),
            currency,
            status: 'completed',
            createdAt: txn.createdAt,
          }
          if (body.merchantName !== undefined) payment.merchantName = body.merchantName
          insertPayment.run(
            payment.id,
            partnerId,
            payment.userId,
            wallet.id,
            txn.id,
            body.merchantName ?? null,
            payment.createdAt,
          )
          money.emit('walletsvc.payment.completed', partnerId, {...payment}, now)
          return payment
        })
      },
    },
    {
      endpoint: endpoints.getUserBalance,
      run(input): UserBalance {
        const {partnerId, userId} = pathUser(input)
        const rows = walletsOf.all(userId, partnerId) as unknown as WalletRow[]
        return {
          userId,
          balances: rows.map((row) => ({...toBalance(walletFromRow(row)), walletId: row.id})),
        }
      },
    },
    {
      endpoint: endpoints.createCard,
      run(input): VirtualCard {
        const {partnerId, userId} = pathUser(input)
        const body = parseInput(CreateCardRequestSchema, input.body ?? {}, 'request body')
        let wallet: WalletState
        if (body.walletId === undefined) {
          wallet = requireWallet(userId, 'USD', partnerId)
        } else {
          const found = money.ledger.wallet(body.walletId, partnerId)
          if (found === undefined || found.userId !== userId) {
            throw new ApiError('NOT_FOUND', `User ${userId} has no wallet ${body.walletId}`, {
              resource: 'wallet',
              id: body.walletId,
            })
          }
          wallet = found
        }
        const inactive = money.activeProblem(wallet)
        if (inactive !== undefined) throw inactive
        const now = clock.now()
        const number = testVisaNumber()
        const card: VirtualCard = {
          id: `card_${randomHex(12)}`,
          userId,
          walletId: wallet.id,
          brand: 'visa',
          last4: number.slice(-4),
          expMonth: now.getUTCMonth() + 1,
          expYear: now.getUTCFullYear() + 3,
          status: 'active',
          createdAt: now.toISOString(),
        }
        if (body.label !== undefined) card.label = body.label
        return database.transaction(() => {
          // Only the last four digits are stored; the full number and CVC exist in this response alone.
          insertCard.run(
            card.id,
            partnerId,
            userId,
            wallet.id,
            card.last4,
            card.expMonth,
            card.expYear,
            card.label ?? null,
            card.createdAt,
          )
          money.emit('walletsvc.card.created', partnerId, {...card}, now)
          return {...card, number, cvc: String(randomInt(1000)).padStart(3, '0')}
        })
      },
      // A replay must not resend the number: it is never stored, not even with the idempotency key.
      forReplay(resource) {
        const {number: _number, cvc: _cvc, ...masked} = resource as VirtualCard
        return masked
      },
    },
    {
      endpoint: endpoints.sendP2P,
      run(input): P2PTransfer {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(P2PInput, input.body, 'request body')
        if (body.fromUserId === body.toUserId) {
          throw new ApiError(
            'VALIDATION_ERROR',
            'Invalid request body: toUserId: Must differ from fromUserId',
            {
              field: 'toUserId',
              issues: [{path: 'toUserId', code: 'same_user', message: 'Must differ from fromUserId'}],
            },
          )
        }
        bodyUser(body.fromUserId, partnerId, 'fromUserId')
        bodyUser(body.toUserId, partnerId, 'toUserId')
        const currency = money.currency(body.currency)
        const problem = money.minimumProblem(body.amount, currency)
        if (problem !== undefined) throw problem
        return database.transaction(() => {
          const from = requireWallet(body.fromUserId, currency, partnerId)
          const to = requireWallet(body.toUserId, currency, partnerId)
          const now = clock.now()
          const pair = money.transfer(from, to, body.amount, currency, now, {
            description: body.note ?? 'P2P payment',
            metadata: null,
          })
          const transfer: P2PTransfer = {
            id: `p2p_${randomHex(12)}`,
            fromUserId: body.fromUserId,
            toUserId: body.toUserId,
            fromWalletId: from.id,
            toWalletId: to.id,
            amount: jsonAmount(body.amount),
            currency,
            status: 'completed',
            transactionIds: [pair.out.id, pair.in.id],
            createdAt: pair.out.createdAt,
          }
          if (body.note !== undefined) transfer.note = body.note
          insertTransfer.run(
            transfer.id,
            partnerId,
            transfer.fromUserId,
            transfer.toUserId,
            pair.out.id,
            pair.in.id,
            body.note ?? null,
            transfer.createdAt,
          )
          money.emit('walletsvc.p2p.sent', partnerId, {...transfer}, now)
          return transfer
        })
      },
    },
  ]
}
