import type {z} from 'zod'
import {type Currency, isSupportedCurrency} from '../../contract/currencies.js'
import type {EventName} from '../../contract/events.js'
import {minorToMajorText} from '../../contract/money.js'
import type {CreateTransactionSchema, Transaction} from '../../contract/transactions.js'
import type {SandboxClock} from '../clock.js'
import {type Database, keepWrites, type Statement} from '../database.js'
import {ApiError, invalidCurrency, walletNotFound} from '../errors.js'
import type {EventLog} from '../events.js'
import {jsonAmount} from '../json.js'
import {
  ACH_RETURN_REASON,
  ASYNC_METHODS,
  acceptsMethod,
  CARD_DECLINED_REASON,
  CARD_NO_FUNDS_REASON,
  feeFor,
  type Instrument,
  type InstrumentType,
  type Method,
  MINIMUM_AMOUNT,
  methodAccepts,
  supportedMethods,
  TEST_PAYMENT_METHODS,
} from './catalog.js'
import {type ExternalAccount, Ledger, type Posting, type WalletState} from './ledger.js'
import {newTransactionId, TransactionStore, type TxRecord, toTransaction} from './records.js'

export interface MoneyDeps {
  database: Database
  events: EventLog
  clock: SandboxClock
  /** How long "1-3 days" (and crypto's minutes) takes on the sandbox clock. */
  settleAfterSeconds: number
}

/** A wallet's volume in the current day and month of the sandbox clock, after a payment is counted. */
interface Volume {
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

/** A payment method a user saved, as stored in `payment_methods`. */
interface SavedMethodRow {
  id: string
  user_id: string
  type: InstrumentType
  behaviour: Instrument['behaviour']
  brand: string | null
  last4: string | null
  bank_name: string | null
  created_at: string
}

type CreateTransaction = z.output<typeof CreateTransactionSchema>

const SETTLE_BATCH = 200

/** Where money enters or leaves for each method. */
export function externalOf(method: Method): ExternalAccount {
  if (method === 'ach' || method === 'wire') return 'bank'
  if (method === 'crypto') return 'crypto_network'
  return 'card_network'
}

function missingField(field: string, message: string): ApiError {
  return new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${message}`, {
    field,
    issues: [{path: field, code: 'invalid_conditional', message}],
  })
}

/** A transaction's event data as the spec shows it. */
function transactionEventData(r: TxRecord): Record<string, unknown> {
  return r.status === 'failed'
    ? {
        id: r.id,
        amount: jsonAmount(r.amount),
        currency: r.currency,
        status: r.status,
        failureReason: r.failureReason,
      }
    : {
        id: r.id,
        amount: jsonAmount(r.amount),
        currency: r.currency,
        status: r.status,
        completedAt: r.completedAt,
      }
}

/** `transfer.completed` / `transfer.failed`: the spec shows `transferId` and its snake_case twin. */
function transferEventData(r: TxRecord): Record<string, unknown> {
  const data: Record<string, unknown> = {
    transferId: r.id,
    transfer_id: r.id,
    type: r.type,
    amount: jsonAmount(r.amount),
    currency: r.currency,
    status: r.status,
    sourceWalletId: r.sourceWalletId,
  }
  if (r.destinationWalletId !== null) data.destinationWalletId = r.destinationWalletId
  if (r.failureReason !== null) data.failureReason = r.failureReason
  return data
}

/** The wallets and payment method a transaction names must fit its method: both wallets for a transfer, one otherwise. */
function checkParties(body: CreateTransaction): void {
  const {method} = body
  if (method === 'wallet') {
    if (body.sourceWalletId === undefined) {
      throw missingField('sourceWalletId', 'Required for a wallet-to-wallet transfer (method wallet)')
    }
    if (body.destinationWalletId === undefined) {
      throw missingField('destinationWalletId', 'Required for a wallet-to-wallet transfer (method wallet)')
    }
    if (body.sourceWalletId === body.destinationWalletId) {
      throw missingField('destinationWalletId', 'Must differ from sourceWalletId')
    }
    if (body.paymentMethodId !== undefined && body.paymentMethodId !== body.sourceWalletId) {
      throw new ApiError(
        'INVALID_PAYMENT_METHOD',
        'A wallet-to-wallet transfer draws on its source wallet: paymentMethodId, if given, must be sourceWalletId',
        {field: 'paymentMethodId', paymentMethodId: body.paymentMethodId, method},
      )
    }
  } else {
    if (body.sourceWalletId !== undefined && body.destinationWalletId !== undefined) {
      throw missingField(
        'sourceWalletId',
        `A ${method} transaction moves money into one wallet (destinationWalletId) or out of one (sourceWalletId), not both`,
      )
    }
    if (body.sourceWalletId === undefined && body.destinationWalletId === undefined) {
      throw missingField(
        'destinationWalletId',
        `Required: destinationWalletId to deposit into a wallet, or sourceWalletId to withdraw from one`,
      )
    }
    if ((method === 'card' || method === 'ach') && body.paymentMethodId === undefined) {
      throw missingField('paymentMethodId', `Required for method ${method}`)
    }
  }
}

/**
 * Money movement over the ledger: the checks of POST /transactions, deposits, withdrawals,
 * wallet-to-wallet transfers, wallet-product payments and the settlement of asynchronous payments
 * (refunds are in refunds.ts). Operations run synchronously in one `BEGIN IMMEDIATE` transaction
 * each (a savepoint when the idempotency layer already opened one), so checks and writes never
 * interleave with another request's.
 */
export class MoneyService {
  readonly ledger: Ledger
  readonly records: TransactionStore
  readonly clock: SandboxClock
  readonly database: Database
  private readonly events: EventLog
  private readonly settleAfterMs: number
  private readonly volumeOf: Statement<VolumeRow>
  private readonly saveVolume: Statement
  private readonly savedMethod: Statement<SavedMethodRow>

  constructor(deps: MoneyDeps) {
    this.database = deps.database
    this.events = deps.events
    this.clock = deps.clock
    this.settleAfterMs = deps.settleAfterSeconds * 1000
    this.ledger = new Ledger(deps.database)
    this.records = new TransactionStore(deps.database)
    const {database} = deps
    this.volumeOf = database.prepare<VolumeRow>(
      'SELECT day, daily, month, monthly FROM wallet_volumes WHERE wallet_id = ?',
    )
    this.saveVolume = database.prepare(
      `INSERT INTO wallet_volumes (wallet_id, partner_id, day, daily, month, monthly) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (wallet_id) DO UPDATE SET
         day = excluded.day, daily = excluded.daily, month = excluded.month, monthly = excluded.monthly`,
    )
    this.savedMethod = database.prepare<SavedMethodRow>(
      'SELECT * FROM payment_methods WHERE id = ? AND partner_id = ?',
    )
  }

  // ---- checks -------------------------------------------------------------------------------

  currency(code: string, field = 'currency'): Currency {
    if (!isSupportedCurrency(code)) throw invalidCurrency(code, field)
    return code
  }

  /** The wallet `id` of the partner, or 404. */
  wallet(id: string, partnerId: string): WalletState {
    const wallet = this.ledger.wallet(id, partnerId)
    if (wallet === undefined) throw walletNotFound(id)
    return wallet
  }

  minimumProblem(amount: bigint, currency: Currency): ApiError | undefined {
    const minimum = MINIMUM_AMOUNT[currency]
    if (amount >= minimum) return undefined
    return new ApiError(
      'AMOUNT_TOO_SMALL',
      `Amount is below the minimum of ${minorToMajorText(minimum, currency)} ${currency} (0.50 USD at the sandbox rate)`,
      {minimum: jsonAmount(minimum), currency},
    )
  }

  activeProblem(wallet: WalletState): ApiError | undefined {
    if (wallet.status === 'active') return undefined
    return new ApiError('WALLET_NOT_ACTIVE', `Wallet ${wallet.id} is ${wallet.status}`, {
      walletId: wallet.id,
      status: wallet.status,
    })
  }

  fundsProblem(wallet: WalletState, amount: bigint): ApiError | undefined {
    if (wallet.available >= amount) return undefined
    return new ApiError('INSUFFICIENT_FUNDS', `Wallet ${wallet.id} has insufficient funds`, {
      required: jsonAmount(amount),
      available: jsonAmount(wallet.available),
      currency: wallet.currency,
      walletId: wallet.id,
    })
  }

  /** The wallet's volume once `amount` is counted, or the limit it would break. */
  limits(wallet: WalletState, amount: bigint, nowIso: string): Volume | ApiError {
    const tooLarge = (limit: 'transaction' | 'daily' | 'monthly', maximum: bigint, used?: bigint) => {
      const details: Record<string, unknown> = {limit, maximum: jsonAmount(maximum)}
      if (used !== undefined) details.used = jsonAmount(used)
      Object.assign(details, {currency: wallet.currency, walletId: wallet.id})
      const what = limit === 'transaction' ? 'the per-transaction limit' : `the ${limit} limit`
      return new ApiError('AMOUNT_TOO_LARGE', `Amount exceeds ${what} of wallet ${wallet.id}`, details)
    }
    if (amount > wallet.limits.transaction) return tooLarge('transaction', wallet.limits.transaction)
    const day = nowIso.slice(0, 10)
    const month = nowIso.slice(0, 7)
    const row = this.volumeOf.get(wallet.id)
    const daily = row?.day === day ? BigInt(row.daily) : 0n
    const monthly = row?.month === month ? BigInt(row.monthly) : 0n
    if (daily + amount > wallet.limits.daily) return tooLarge('daily', wallet.limits.daily, daily)
    if (monthly + amount > wallet.limits.monthly) return tooLarge('monthly', wallet.limits.monthly, monthly)
    return {day, daily: daily + amount, month, monthly: monthly + amount}
  }

  private checkLimits(wallet: WalletState, amount: bigint, nowIso: string): Volume {
    const volume = this.limits(wallet, amount, nowIso)
    if (volume instanceof ApiError) throw volume
    return volume
  }

  private countVolume(wallet: WalletState, v: Volume): void {
    this.saveVolume.run(wallet.id, wallet.partnerId, v.day, v.daily.toString(), v.month, v.monthly.toString())
  }

  /** Throw `problem`, if there is one. */
  check(problem: ApiError | undefined): void {
    if (problem !== undefined) throw problem
  }

  /** A shared test payment method, or one the partner's users saved. */
  instrument(id: string, partnerId: string): Instrument | undefined {
    const shared = TEST_PAYMENT_METHODS.get(id)
    if (shared !== undefined) return shared
    const row = this.savedMethod.get(id, partnerId)
    if (row === undefined) return undefined
    const instrument: Instrument = {
      id: row.id,
      userId: row.user_id,
      type: row.type,
      behaviour: row.behaviour,
      createdAt: row.created_at,
    }
    if (row.brand !== null) instrument.brand = row.brand
    if (row.last4 !== null) instrument.last4 = row.last4
    if (row.bank_name !== null) instrument.bankName = row.bank_name
    return instrument
  }

  // ---- records and events -------------------------------------------------------------------

  /** A new transaction record with the defaults of a completed, fee-free movement. */
  record(
    fields: Partial<TxRecord> & Pick<TxRecord, 'partnerId' | 'walletId' | 'type' | 'amount' | 'currency'>,
    nowIso: string,
  ): TxRecord {
    return {
      id: newTransactionId(),
      status: 'completed',
      method: null,
      fee: 0n,
      netAmount: fields.amount - (fields.fee ?? 0n),
      sourceWalletId: null,
      destinationWalletId: null,
      paymentMethodId: null,
      description: null,
      metadata: null,
      pairedId: null,
      originalId: null,
      refundedAmount: 0n,
      failureReason: null,
      outcome: null,
      settlesAt: null,
      createdAt: nowIso,
      completedAt: null,
      estimatedCompletion: null,
      ...fields,
    }
  }

  emit(type: EventName, partnerId: string, data: Record<string, unknown>, now: Date): void {
    this.events.record(type, partnerId, data, now)
  }

  /** Record `transaction.completed` or `transaction.failed` for `r`. */
  emitTransaction(r: TxRecord, now: Date): void {
    this.emit(
      r.status === 'failed' ? 'transaction.failed' : 'transaction.completed',
      r.partnerId,
      transactionEventData(r),
      now,
    )
  }

  // ---- operations ---------------------------------------------------------------------------

  /** Credit a new sandbox wallet with its `initialBalance`: an `adjustment` from sandbox funding. */
  fund(wallet: WalletState, amount: bigint, now: Date): void {
    const nowIso = now.toISOString()
    const r = this.record(
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
    this.records.insert(r)
    this.ledger.post(
      wallet.partnerId,
      r.id,
      wallet.currency,
      [
        {external: 'sandbox_funding', amount: -amount},
        {wallet, bucket: 'available', amount},
      ],
      nowIso,
    )
    this.emitTransaction(r, now)
  }

  /** POST /transactions. */
  createTransaction(partnerId: string, body: CreateTransaction): Transaction {
    const currency = this.currency(body.currency)
    const {method, amount} = body
    if (!acceptsMethod(currency, method)) {
      const supported = supportedMethods(currency)
      throw new ApiError(
        'INVALID_PAYMENT_METHOD',
        method === 'ach'
          ? `ACH is US-only: it takes USD, not ${currency}`
          : `Method ${method} is not available for ${currency}`,
        {field: 'method', method, currency, supported: [...supported]},
      )
    }
    checkParties(body)
    this.check(this.minimumProblem(amount, currency))

    return this.database.transaction(() => {
      const now = this.clock.now()
      let instrument: Instrument | undefined
      if (method !== 'wallet' && body.paymentMethodId !== undefined) {
        instrument = this.instrument(body.paymentMethodId, partnerId)
        if (instrument === undefined) {
          throw new ApiError('PAYMENT_METHOD_NOT_FOUND', `No payment method ${body.paymentMethodId}`, {
            paymentMethodId: body.paymentMethodId,
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
      }
      const opts = {description: body.description ?? null, metadata: body.metadata ?? null}
      if (method === 'wallet') {
        const source = this.wallet(body.sourceWalletId!, partnerId)
        const destination = this.wallet(body.destinationWalletId!, partnerId)
        const paired = this.transfer(source, destination, amount, currency, now, {
          ...opts,
          paymentMethodId: body.paymentMethodId ?? null,
        })
        return toTransaction(paired.out)
      }
      const walletId = body.destinationWalletId ?? body.sourceWalletId!
      const wallet = this.wallet(walletId, partnerId)
      this.checkWalletFits(wallet, currency, instrument)
      return toTransaction(
        body.destinationWalletId !== undefined
          ? this.deposit(wallet, method, amount, instrument, now, opts)
          : this.withdraw(wallet, method, amount, instrument, now, opts),
      )
    })
  }

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
    this.check(this.activeProblem(wallet))
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
    opts: {
      description: string | null
      metadata: Record<string, string> | null
      paymentMethodId?: string | null
    },
  ): {out: TxRecord; in: TxRecord} {
    this.checkWalletFits(source, currency, undefined)
    this.checkWalletFits(destination, currency, undefined)
    const nowIso = now.toISOString()
    const volume = this.checkLimits(source, amount, nowIso)
    this.check(this.fundsProblem(source, amount))
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
    }
    const outId = newTransactionId()
    const inId = newTransactionId()
    const out = this.record(
      {...shared, id: outId, walletId: source.id, type: 'transfer_out', pairedId: inId},
      nowIso,
    )
    const incoming = this.record(
      {...shared, id: inId, walletId: destination.id, type: 'transfer_in', pairedId: outId},
      nowIso,
    )
    this.records.insert(out)
    this.records.insert(incoming)
    // Both halves are one posting, filed under the transfer_out.
    this.ledger.post(
      source.partnerId,
      out.id,
      currency,
      [
        {wallet: source, bucket: 'available', amount: -amount},
        {wallet: destination, bucket: 'available', amount},
      ],
      nowIso,
    )
    this.countVolume(source, volume)
    this.emitTransaction(out, now)
    this.emitTransaction(incoming, now)
    this.emit('transfer.completed', source.partnerId, transferEventData(out), now)
    return {out, in: incoming}
  }

  private deposit(
    wallet: WalletState,
    method: Method,
    amount: bigint,
    instrument: Instrument | undefined,
    now: Date,
    opts: {description: string | null; metadata: Record<string, string> | null},
  ): TxRecord {
    const nowIso = now.toISOString()
    const volume = this.checkLimits(wallet, amount, nowIso)
    const fee = feeFor(method, wallet.currency, amount)
    const r = this.record(
      {
        ...opts,
        partnerId: wallet.partnerId,
        walletId: wallet.id,
        type: 'deposit',
        method,
        amount,
        currency: wallet.currency,
        fee,
        destinationWalletId: wallet.id,
        paymentMethodId: instrument?.id ?? null,
      },
      nowIso,
    )
    this.declineIfCardSaysSo(r, instrument, now)
    const external = externalOf(method)
    const async = ASYNC_METHODS.has(method)
    if (async) this.schedule(r, instrument, now)
    else r.completedAt = nowIso
    this.records.insert(r)
    // Until an asynchronous deposit settles, its money waits in the pending bucket.
    this.ledger.post(
      r.partnerId,
      r.id,
      r.currency,
      [
        {external, amount: -amount},
        {wallet, bucket: async ? 'pending' : 'available', amount: r.netAmount},
        {external: 'fees', amount: fee},
      ],
      nowIso,
    )
    this.countVolume(wallet, volume)
    if (!async) this.emitTransaction(r, now)
    return r
  }

  private withdraw(
    wallet: WalletState,
    method: Method,
    amount: bigint,
    instrument: Instrument | undefined,
    now: Date,
    opts: {description: string | null; metadata: Record<string, string> | null},
  ): TxRecord {
    const nowIso = now.toISOString()
    const volume = this.checkLimits(wallet, amount, nowIso)
    this.check(this.fundsProblem(wallet, amount))
    const fee = feeFor(method, wallet.currency, amount)
    const r = this.record(
      {
        ...opts,
        partnerId: wallet.partnerId,
        walletId: wallet.id,
        type: 'withdrawal',
        method,
        amount,
        currency: wallet.currency,
        fee,
        sourceWalletId: wallet.id,
        paymentMethodId: instrument?.id ?? null,
      },
      nowIso,
    )
    this.declineIfCardSaysSo(r, instrument, now)
    const async = ASYNC_METHODS.has(method)
    if (async) this.schedule(r, instrument, now)
    else r.completedAt = nowIso
    this.records.insert(r)
    if (async) {
      // Until an asynchronous withdrawal settles, its money is held in the reserved bucket.
      this.ledger.post(
        r.partnerId,
        r.id,
        r.currency,
        [
          {wallet, bucket: 'available', amount: -amount},
          {wallet, bucket: 'reserved', amount},
        ],
        nowIso,
      )
    } else {
      this.ledger.post(
        r.partnerId,
        r.id,
        r.currency,
        [
          {wallet, bucket: 'available', amount: -amount},
          {external: externalOf(method), amount: r.netAmount},
          {external: 'fees', amount: fee},
        ],
        nowIso,
      )
    }
    this.countVolume(wallet, volume)
    if (!async) {
      this.emitTransaction(r, now)
      this.emit('transfer.completed', r.partnerId, transferEventData(r), now)
    }
    return r
  }

  /** Make `r` a processing transaction that settles after the configured delay. */
  private schedule(r: TxRecord, instrument: Instrument | undefined, now: Date): void {
    const settlesAt = now.getTime() + this.settleAfterMs
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
    this.emitTransaction(r, now)
    if (r.type === 'withdrawal') this.emit('transfer.failed', r.partnerId, transferEventData(r), now)
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

  /** Settle every processing transaction due on the sandbox clock; returns how many settled. */
  settleDue(): number {
    let settled = 0
    for (;;) {
      const nowMs = this.clock.nowMs()
      const batch = this.database.transaction(() => {
        const due = this.records.due(nowMs, SETTLE_BATCH)
        for (const r of due) this.settle(r)
        return due.length
      })
      settled += batch
      if (batch < SETTLE_BATCH) return settled
    }
  }

  /** Finish one processing transaction at its scheduled time: completed, or failed (a returned ACH). */
  private settle(r: TxRecord): void {
    const at = new Date(r.settlesAt ?? this.clock.nowMs())
    const atIso = at.toISOString()
    const wallet = this.ledger.wallet(r.walletId, r.partnerId)
    if (wallet === undefined) throw new Error(`transaction ${r.id} belongs to no wallet`)
    const external = externalOf(r.method ?? 'wire')
    let postings: Posting[]
    if (r.outcome === 'fail') {
      r.status = 'failed'
      r.failureReason = ACH_RETURN_REASON
      // Everything goes back where it came from, fee included.
      postings =
        r.type === 'deposit'
          ? [
              {wallet, bucket: 'pending', amount: -r.netAmount},
              {external: 'fees', amount: -r.fee},
              {external, amount: r.amount},
            ]
          : [
              {wallet, bucket: 'reserved', amount: -r.amount},
              {wallet, bucket: 'available', amount: r.amount},
            ]
    } else {
      r.status = 'completed'
      r.completedAt = atIso
      postings =
        r.type === 'deposit'
          ? [
              {wallet, bucket: 'pending', amount: -r.netAmount},
              {wallet, bucket: 'available', amount: r.netAmount},
            ]
          : [
              {wallet, bucket: 'reserved', amount: -r.amount},
              {external, amount: r.netAmount},
              {external: 'fees', amount: r.fee},
            ]
    }
    r.settlesAt = null
    this.records.save(r)
    this.ledger.post(r.partnerId, r.id, r.currency, postings, atIso)
    this.emitTransaction(r, at)
    if (r.type === 'withdrawal') {
      this.emit(
        r.status === 'failed' ? 'transfer.failed' : 'transfer.completed',
        r.partnerId,
        transferEventData(r),
        at,
      )
    }
  }

  /** Debit a user's wallet for a wallet-product payment to a merchant. */
  pay(wallet: WalletState, amount: bigint, now: Date, opts: {description: string | null}): TxRecord {
    const nowIso = now.toISOString()
    this.check(this.activeProblem(wallet))
    const volume = this.checkLimits(wallet, amount, nowIso)
    this.check(this.fundsProblem(wallet, amount))
    const r = this.record(
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
      },
      nowIso,
    )
    this.records.insert(r)
    this.ledger.post(
      r.partnerId,
      r.id,
      r.currency,
      [
        {wallet, bucket: 'available', amount: -amount},
        {external: 'merchants', amount},
      ],
      nowIso,
    )
    this.countVolume(wallet, volume)
    this.emitTransaction(r, now)
    return r
  }
}
