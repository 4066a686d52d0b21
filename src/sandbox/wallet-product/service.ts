import {randomInt} from 'node:crypto'
import type {z} from 'zod'
import type {Currency} from '../../contract/money/currencies.js'
import type {
  CreateCardRequestSchema,
  Eligibility,
  EligibilityRequestSchema,
  P2PRequestSchema,
  P2PTransfer,
  UserBalance,
  VirtualCard,
  WalletPayment,
  WalletPaymentRequestSchema,
} from '../../contract/wallet-product.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {jsonAmount} from '../http/json.js'
import {
  activeProblem,
  fundsProblem,
  minimumProblem,
  requireActive,
  requireMinimum,
  supportedCurrency,
} from '../money/checks.js'
import {toBalance, type WalletState} from '../money/ledger.js'
import type {Database} from '../storage/database.js'
import {randomHex} from '../storage/ids.js'
import {p2pOwner, paymentOwner} from './schema.js'

type EligibilityBody = z.output<typeof EligibilityRequestSchema>
type WalletPaymentBody = z.output<typeof WalletPaymentRequestSchema>
type CreateCardBody = z.output<typeof CreateCardRequestSchema>
type P2PBody = z.output<typeof P2PRequestSchema>

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
function testVisaNumber(): string {
  let body = '400000'
  while (body.length < 15) body += String(randomInt(10))
  return body + luhnCheckDigit(body)
}

function statements(database: Database) {
  return {
    insertPayment: database.prepare(
      `INSERT INTO walletsvc_payments (id, partner_id, user_id, wallet_id, transaction_id, merchant_name, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertTransfer: database.prepare(
      `INSERT INTO walletsvc_transfers (id, partner_id, from_user_id, to_user_id, out_transaction_id,
         in_transaction_id, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertCard: database.prepare(
      `INSERT INTO virtual_cards (id, partner_id, user_id, wallet_id, brand, last4, exp_month, exp_year, status,
         label, created_at) VALUES (?, ?, ?, ?, 'visa', ?, ?, ?, 'active', ?, ?)`,
    ),
  }
}

/** The wallet product (`/walletsvc`): eligibility, payments, balances, virtual cards, P2P. */
export class WalletProductService {
  private readonly q: ReturnType<typeof statements>

  constructor(
    private readonly deps: Pick<SandboxContext, 'database' | 'clock' | 'money' | 'tenants' | 'events'>,
  ) {
    this.q = statements(deps.database)
  }

  /** Whether the user could pay the amount now, and every reason why not. */
  eligibility(partnerId: string, body: EligibilityBody): Eligibility {
    const {money, clock, tenants} = this.deps
    tenants.requireUser(partnerId, body.userId, {field: 'userId'})
    const currency = supportedCurrency(body.currency)
    const wallet = money.ledger.walletOfUser(body.userId, currency, partnerId)
    const reasons: Eligibility['reasons'] = []
    if (minimumProblem(body.amount, currency) !== undefined) reasons.push('AMOUNT_TOO_SMALL')
    if (wallet === undefined) {
      reasons.push('NO_WALLET')
    } else {
      if (activeProblem(wallet) !== undefined) reasons.push('WALLET_NOT_ACTIVE')
      if (money.volumes.limits(wallet, body.amount, clock.now(partnerId).toISOString()) instanceof ApiError) {
        reasons.push('AMOUNT_TOO_LARGE')
      }
      if (fundsProblem(wallet, body.amount) !== undefined) reasons.push('INSUFFICIENT_FUNDS')
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
  }

  /** A payment from the user's wallet in the currency, to a merchant outside the sandbox. */
  pay(partnerId: string, body: WalletPaymentBody): WalletPayment {
    const {money, clock, database, tenants, events} = this.deps
    tenants.requireUser(partnerId, body.userId, {field: 'userId'})
    const currency = supportedCurrency(body.currency)
    requireMinimum(body.amount, currency)
    return database.transaction(() => {
      const wallet = this.requireWallet(body.userId, currency, partnerId)
      const now = clock.now(partnerId)
      const description =
        body.description ?? (body.merchantName === undefined ? null : `Payment to ${body.merchantName}`)
      const id = `wpay_${randomHex(12)}`
      const txn = money.pay(wallet, body.amount, now, {description, owner: paymentOwner(id)})
      const payment: WalletPayment = {
        id,
        userId: body.userId,
        walletId: wallet.id,
        transactionId: txn.id,
        amount: jsonAmount(body.amount),
        currency,
        status: 'completed',
        createdAt: txn.createdAt,
      }
      if (body.merchantName !== undefined) payment.merchantName = body.merchantName
      this.q.insertPayment.run(
        payment.id,
        partnerId,
        payment.userId,
        wallet.id,
        txn.id,
        body.merchantName ?? null,
        payment.createdAt,
      )
      events.record('walletsvc.payment.completed', partnerId, {...payment}, now)
      return payment
    })
  }

  /** The balances of each of the user's wallets, oldest wallet first. */
  balances(partnerId: string, userId: string): UserBalance {
    return {
      userId,
      balances: this.deps.money.ledger
        .walletsOfUser(userId, partnerId)
        .map((wallet) => ({...toBalance(wallet), walletId: wallet.id})),
    }
  }

  /** A virtual card on the user's wallet (their USD wallet unless one is named); only its last four digits are kept. */
  createCard(partnerId: string, userId: string, body: CreateCardBody): VirtualCard {
    const {money, clock, database, events} = this.deps
    let wallet: WalletState
    if (body.walletId === undefined) {
      wallet = this.requireWallet(userId, 'USD', partnerId)
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
    requireActive(wallet)
    const now = clock.now(partnerId)
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
      this.q.insertCard.run(
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
      events.record('walletsvc.card.created', partnerId, {...card}, now)
      return {...card, number, cvc: String(randomInt(1000)).padStart(3, '0')}
    })
  }

  /** Money from one of the partner's users to another, between their wallets in the currency. */
  sendP2P(partnerId: string, body: P2PBody): P2PTransfer {
    const {money, clock, database, tenants, events} = this.deps
    if (body.fromUserId === body.toUserId) {
      throw new ApiError('VALIDATION_ERROR', 'Invalid request body: toUserId: Must differ from fromUserId', {
        field: 'toUserId',
        issues: [{path: 'toUserId', code: 'same_user', message: 'Must differ from fromUserId'}],
      })
    }
    tenants.requireUser(partnerId, body.fromUserId, {field: 'fromUserId'})
    tenants.requireUser(partnerId, body.toUserId, {field: 'toUserId'})
    const currency = supportedCurrency(body.currency)
    requireMinimum(body.amount, currency)
    return database.transaction(() => {
      const from = this.requireWallet(body.fromUserId, currency, partnerId)
      const to = this.requireWallet(body.toUserId, currency, partnerId)
      const now = clock.now(partnerId)
      const id = `p2p_${randomHex(12)}`
      const pair = money.transfer(from, to, body.amount, currency, now, {
        description: body.note ?? 'P2P payment',
        metadata: null,
        owner: p2pOwner(id),
      })
      const transfer: P2PTransfer = {
        id,
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
      this.q.insertTransfer.run(
        transfer.id,
        partnerId,
        transfer.fromUserId,
        transfer.toUserId,
        pair.out.id,
        pair.in.id,
        body.note ?? null,
        transfer.createdAt,
      )
      events.record('walletsvc.p2p.sent', partnerId, {...transfer}, now)
      return transfer
    })
  }

  private requireWallet(userId: string, currency: Currency, partnerId: string): WalletState {
    const wallet = this.deps.money.ledger.walletOfUser(userId, currency, partnerId)
    if (wallet === undefined) {
      throw new ApiError('NOT_FOUND', `User ${userId} has no ${currency} wallet`, {
        resource: 'wallet',
        userId,
        currency,
      })
    }
    return wallet
  }
}
