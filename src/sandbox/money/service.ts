import type {Currency} from '../../contract/money/currencies.js'
import type {SandboxClock} from '../clock.js'
import type {EventLog} from '../event-log.js'
import {ApiError, walletNotFound} from '../http/api-error.js'
import {jsonAmount} from '../http/json.js'
import {type Database, keepWrites} from '../storage/database.js'
import {
  ASYNC_METHODS,
  CARD_DECLINED_REASON,
  CARD_NO_FUNDS_REASON,
  externalOf,
  feeFor,
  type Instrument,
  type Method,
  methodAccepts,
} from './catalog.js'
import {requireActive, requireFunds} from './checks.js'
import {MoneyEvents} from './events.js'
import {Ledger, type Posting, type WalletState} from './ledger.js'
import type {Owner} from './owners.js'
import {newRecord, newTransactionId, TransactionStore, type TxRecord} from './records.js'
import {SavedMethods} from './saved-methods.js'
import {Settlement} from './settlement.js'
import {WalletVolumes} from './volumes.js'

export interface MoneyDeps {
  database: Database
  events: EventLog
  clock: SandboxClock
  /** How long "1-3 days" (and crypto's minutes) takes on the sandbox clock. */
  settleAfterSeconds: number
}

/** What a caller says of a movement besides its amount. */
export interface Movement {
  description: string | null
  metadata: Record<string, string> | null
  /** The product moving the money, which then owns its records (owners.ts). */
  owner?: Owner | undefined
}

/** A payment in or out of a wallet: how much, in what currency, by what method, drawing on what. */
export interface Payment {
  method: Method
  amount: bigint
  currency: Currency
  instrument: Instrument | undefined
}

/**
 * The kernel's money movement over the ledger (docs/money.md): deposits, withdrawals,
 * wallet-to-wallet transfers, wallet payments to merchants and the funding of new wallets, each
 * with its checks, records, posting and events; the settlement of asynchronous payments (refunds
 * are in refunds.ts). Operations are synchronous: callers run them in one database transaction
 * with their own writes, so checks and writes never interleave with another request's.
 */
export class MoneyService {
  readonly database: Database
  readonly clock: SandboxClock
  readonly ledger: Ledger
  readonly records: TransactionStore
  readonly volumes: WalletVolumes
  readonly saved: SavedMethods
  readonly events: MoneyEvents
  readonly #settlement: Settlement
  readonly #settleAfterMs: number

  constructor(deps: MoneyDeps) {
    const {database, clock} = deps
    this.database = database
    this.clock = clock
    this.#settleAfterMs = deps.settleAfterSeconds * 1000
    this.ledger = new Ledger(database)
    this.records = new TransactionStore(database)
    this.volumes = new WalletVolumes(database)
    this.saved = new SavedMethods(database)
    this.events = new MoneyEvents(deps.events)
    const {ledger, records, events} = this
    this.#settlement = new Settlement({database, clock, ledger, records, events})
  }

  /** The wallet `id` of the partner, or 404. */
  wallet(id: string, partnerId: string): WalletState {
    const wallet = this.ledger.wallet(id, partnerId)
    if (wallet === undefined) throw walletNotFound(id)
    return wallet
  }

  /** The transaction `id` of the partner, or 404. */
  transaction(id: string, partnerId: string): TxRecord {
    const record = this.records.get(id, partnerId)
    if (record === undefined)
      throw new ApiError('NOT_FOUND', `No transaction ${id}`, {resource: 'transaction', id})
    return record
  }

  /** The payment method a payment by `method` draws on: a shared test one or one the partner's users saved. */
  instrumentFor(method: Method, paymentMethodId: string, partnerId: string): Instrument {
    const instrument = this.saved.instrument(paymentMethodId, partnerId)
    if (instrument === undefined) {
      throw new ApiError('PAYMENT_METHOD_NOT_FOUND', `No payment method ${paymentMethodId}`, {
        paymentMethodId,
      })
    }
    if (!methodAccepts(method, instrument.type)) {
      throw new ApiError(
        'INVALID_PAYMENT_METHOD',
        `Payment method ${instrument.id} is a ${instrument.type} method; it cannot pay by ${method}`,
        {
          field: 'paymentMethodId',
          paymentMethodId: instrument.id,
          paymentMethodType: instrument.type,
          method,
        },
      )
    }
    return instrument
  }

  /** Settle the partner's processing transactions due by `nowMs` on its clock; returns how many settled. */
  settleDue(partnerId: string, nowMs: number): number {
    return this.#settlement.settleDue(partnerId, nowMs)
  }

  /** Credit a new sandbox wallet with its `initialBalance`: an `adjustment` from sandbox funding. */
  fund(wallet: WalletState, amount: bigint, now: Date): void {
    const nowIso = now.toISOString()
    const r = newRecord(
      {
        partnerId: wallet.partnerId,
        walletId: wallet.id,
        type: 'adjustment',
        amount,
        currency: wallet.currency,
        destinationWalletId: wallet.id,
        description: 'Sandbox initial balance',
        completedAt: nowIso,
      },
      nowIso,
    )
    this.book(
      [r],
      [
        {external: 'sandbox_funding', amount: -amount},
        {wallet, bucket: 'available', amount},
      ],
      nowIso,
    )
    this.events.transaction(r, now)
  }

  /**
   * Write a movement's records, then the one posting that moves its money, filed under the first
   * record (both halves of a transfer are one posting).
   */
  book(records: readonly [TxRecord, ...TxRecord[]], postings: Posting[], nowIso: string): void {
    this.records.insertAll(records)
    const [first] = records
    this.ledger.post(first.partnerId, first.id, first.currency, postings, nowIso)
  }

  /** The wallet must hold `currency`, be active, and belong to the user whose instrument pays. */
  private checkWalletFits(wallet: WalletState, currency: Currency, instrument: Instrument | undefined): void {
    if (wallet.currency !== currency) {
      throw new ApiError(
        'CURRENCY_MISMATCH',
        `Wallet ${wallet.id} holds ${wallet.currency}, not ${currency}`,
        {
          walletId: wallet.id,
          walletCurrency: wallet.currency,
          currency,
        },
      )
    }
    requireActive(wallet)
    if (instrument?.userId != null && instrument.userId !== wallet.userId) {
      throw new ApiError(
        'INVALID_PAYMENT_METHOD',
        `Payment method ${instrument.id} belongs to another user than wallet ${wallet.id}'s`,
        {field: 'paymentMethodId', paymentMethodId: instrument.id, walletId: wallet.id},
      )
    }
  }

  /** Move `amount` from one wallet to another: a transfer_out and a transfer_in record, one posting. */
  transfer(
    source: WalletState,
    destination: WalletState,
    amount: bigint,
    currency: Currency,
    now: Date,
    opts: Movement & {paymentMethodId?: string | null},
  ): {out: TxRecord; in: TxRecord} {
    this.checkWalletFits(source, currency, undefined)
    this.checkWalletFits(destination, currency, undefined)
    const nowIso = now.toISOString()
    const volume = this.volumes.require(source, amount, nowIso)
    requireFunds(source, amount)
    const shared = {
      partnerId: source.partnerId,
      status: 'completed' as const,
      method: 'wallet' as const,
      amount,
      currency,
      sourceWalletId: source.id,
      destinationWalletId: destination.id,
      paymentMethodId: opts.paymentMethodId ?? null,
      description: opts.description,
      metadata: opts.metadata,
      completedAt: nowIso,
      owner: opts.owner ?? null,
    }
    const outId = newTransactionId()
    const inId = newTransactionId()
    const out = newRecord(
      {...shared, id: outId, walletId: source.id, type: 'transfer_out', pairedId: inId},
      nowIso,
    )
    const incoming = newRecord(
      {...shared, id: inId, walletId: destination.id, type: 'transfer_in', pairedId: outId},
      nowIso,
    )
    // Both halves are one posting, filed under the transfer_out.
    this.book(
      [out, incoming],
      [
        {wallet: source, bucket: 'available', amount: -amount},
        {wallet: destination, bucket: 'available', amount},
      ],
      nowIso,
    )
    this.volumes.count(source, volume)
    this.events.transferred(out, incoming, now)
    return {out, in: incoming}
  }

  /** Money into the wallet from outside, by `method`: pending until it settles when the method is asynchronous. */
  deposit(wallet: WalletState, payment: Payment, now: Date, opts: Movement): TxRecord {
    return this.external('deposit', wallet, payment, now, opts)
  }

  /** Money out of the wallet, by `method`: held in its reserved bucket until it settles when asynchronous. */
  withdraw(wallet: WalletState, payment: Payment, now: Date, opts: Movement): TxRecord {
    return this.external('withdrawal', wallet, payment, now, opts)
  }

  /**
   * A deposit or a withdrawal: the wallet checked, the record, a declining test card's refusal, then
   * settlement scheduled (asynchronous methods) or done, the posting, and the volume counted.
   */
  private external(
    type: 'deposit' | 'withdrawal',
    wallet: WalletState,
    payment: Payment,
    now: Date,
    opts: Movement,
  ): TxRecord {
    const {method, amount, instrument} = payment
    const out = type === 'withdrawal'
    this.checkWalletFits(wallet, payment.currency, instrument)
    const nowIso = now.toISOString()
    const volume = this.volumes.require(wallet, amount, nowIso)
    if (out) requireFunds(wallet, amount)
    const fee = feeFor(method, wallet.currency, amount)
    const r = newRecord(
      {
        description: opts.description,
        metadata: opts.metadata,
        owner: opts.owner ?? null,
        partnerId: wallet.partnerId,
        walletId: wallet.id,
        type,
        method,
        amount,
        currency: wallet.currency,
        fee,
        ...(out ? {sourceWalletId: wallet.id} : {destinationWalletId: wallet.id}),
        paymentMethodId: instrument?.id ?? null,
      },
      nowIso,
    )
    this.declineIfCardSaysSo(r, instrument, now)
    const async = ASYNC_METHODS.has(method)
    if (async) this.schedule(r, instrument, now)
    else r.completedAt = nowIso
    this.book([r], externalPostings(r, wallet, method, async), nowIso)
    this.volumes.count(wallet, volume)
    if (!async) {
      this.events.transaction(r, now)
      if (out) this.events.transfer(r, now)
    }
    return r
  }

  /** Make `r` a processing transaction that settles after the configured delay. */
  private schedule(r: TxRecord, instrument: Instrument | undefined, now: Date): void {
    const settlesAt = now.getTime() + this.#settleAfterMs
    r.status = 'processing'
    r.settlesAt = settlesAt
    r.estimatedCompletion = new Date(settlesAt).toISOString()
    r.outcome = instrument?.behaviour === 'return' ? 'fail' : 'complete'
  }

  /**
   * A test card that declines: store the failed transaction and its events, and answer 402. The
   * error keeps its writes, so the failed record survives the rollback an error would cause.
   */
  private declineIfCardSaysSo(r: TxRecord, instrument: Instrument | undefined, now: Date): void {
    const behaviour = instrument?.behaviour
    if (behaviour !== 'decline' && behaviour !== 'insufficient_funds') return
    r.status = 'failed'
    r.failureReason = behaviour === 'decline' ? CARD_DECLINED_REASON : CARD_NO_FUNDS_REASON
    this.records.insert(r)
    this.events.transaction(r, now)
    if (r.type === 'withdrawal') this.events.transfer(r, now)
    const common = {transactionId: r.id, paymentMethodId: r.paymentMethodId}
    throw keepWrites(
      behaviour === 'decline'
        ? new ApiError('CARD_DECLINED', 'The card issuer declined the payment', {
            ...common,
            declineCode: 'card_declined',
          })
        : new ApiError('INSUFFICIENT_FUNDS', 'The card has insufficient funds', {
            required: jsonAmount(r.amount),
            available: 0,
            currency: r.currency,
            walletId: r.walletId,
            ...common,
            declineCode: 'insufficient_funds',
          }),
    )
  }

  /** Debit a user's wallet for a payment to a merchant outside the sandbox. */
  pay(
    wallet: WalletState,
    amount: bigint,
    now: Date,
    opts: Pick<Movement, 'description' | 'owner'>,
  ): TxRecord {
    const nowIso = now.toISOString()
    requireActive(wallet)
    const volume = this.volumes.require(wallet, amount, nowIso)
    requireFunds(wallet, amount)
    const r = newRecord(
      {
        partnerId: wallet.partnerId,
        walletId: wallet.id,
        type: 'payment',
        method: 'wallet',
        amount,
        currency: wallet.currency,
        sourceWalletId: wallet.id,
        paymentMethodId: wallet.id,
        description: opts.description,
        completedAt: nowIso,
        owner: opts.owner ?? null,
      },
      nowIso,
    )
    this.book(
      [r],
      [
        {wallet, bucket: 'available', amount: -amount},
        {external: 'merchants', amount},
      ],
      nowIso,
    )
    this.volumes.count(wallet, volume)
    this.events.transaction(r, now)
    return r
  }
}

/**
 * The posting of a deposit or a withdrawal. Until an asynchronous deposit settles its money waits in
 * the pending bucket, and an asynchronous withdrawal's in the reserved one (settlement.ts moves it on).
 */
function externalPostings(r: TxRecord, wallet: WalletState, method: Method, async: boolean): Posting[] {
  const {amount, netAmount, fee} = r
  if (r.type === 'deposit') {
    return [
      {external: externalOf(method), amount: -amount},
      {wallet, bucket: async ? 'pending' : 'available', amount: netAmount},
      {external: 'fees', amount: fee},
    ]
  }
  return async
    ? [
        {wallet, bucket: 'available', amount: -amount},
        {wallet, bucket: 'reserved', amount},
      ]
    : [
        {wallet, bucket: 'available', amount: -amount},
        {external: externalOf(method), amount: netAmount},
        {external: 'fees', amount: fee},
      ]
}
