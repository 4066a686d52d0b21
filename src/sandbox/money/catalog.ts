import {
  CRYPTO_CURRENCIES,
  type Currency,
  SUPPORTED_CURRENCIES,
  usdCentsToMinor,
} from '../../contract/money/currencies.js'
import type {PAYMENT_METHOD_TYPES} from '../../contract/payment-methods.js'
import type {PAYMENT_METHODS} from '../../contract/transactions.js'
import type {ExternalAccount} from './ledger.js'

/**
 * The sandbox's fixed tables for money movement: which methods each currency takes, fees, the
 * minimum amount, and the deterministic test payment methods. All documented in docs/money.md.
 */

export type Method = (typeof PAYMENT_METHODS)[number]
export type InstrumentType = (typeof PAYMENT_METHOD_TYPES)[number]

// Crypto is "global" in the interface's method table, so every currency takes it.
const USD_METHODS = ['card', 'ach', 'wire', 'wallet', 'crypto', 'apple_pay', 'google_pay'] as const
// The interface's example for EUR lists card, sepa, wire and crypto; `sepa` is not a method of
// POST /transactions (its enum refuses it), and `wallet` works in every currency. What is listed is
// what is accepted (docs/money.md#methods-per-currency).
const EUR_METHODS = ['card', 'wire', 'wallet', 'crypto'] as const
const OTHER_FIAT_METHODS = ['card', 'wire', 'wallet', 'crypto', 'apple_pay', 'google_pay'] as const
const CRYPTO_METHODS = ['crypto', 'wallet'] as const

const CRYPTO = new Set<string>(CRYPTO_CURRENCIES)

/** The methods `currency` supports, as INVALID_PAYMENT_METHOD lists them in `details.supported`. */
export function supportedMethods(currency: Currency): readonly string[] {
  if (currency === 'USD') return USD_METHODS
  if (currency === 'EUR') return EUR_METHODS
  return CRYPTO.has(currency) ? CRYPTO_METHODS : OTHER_FIAT_METHODS
}

/** Whether a payment in `currency` may use `method`: exactly the methods it lists. */
export function acceptsMethod(currency: Currency, method: string): boolean {
  return supportedMethods(currency).includes(method)
}

/** Methods that settle later on the sandbox clock ("1-3 days", "5-60 minutes"); the others are instant. */
export const ASYNC_METHODS: ReadonlySet<Method> = new Set<Method>(['ach', 'wire', 'crypto'])
/** Methods a completed deposit or payment of which can be refunded. */
export const REFUNDABLE_DEPOSIT_METHODS: ReadonlySet<string> = new Set(['card', 'apple_pay', 'google_pay'])

function perCurrency(cents: bigint, rounding: 'floor' | 'ceil'): Record<Currency, bigint> {
  return Object.fromEntries(
    SUPPORTED_CURRENCIES.map((c) => [c, usdCentsToMinor(cents, c, rounding)]),
  ) as Record<Currency, bigint>
}

/** 0.50 USD in each currency, rounded up so that no minimum falls below its dollar value. */
export const MINIMUM_AMOUNT = perCurrency(50n, 'ceil')
// Fixed fee parts and caps round down, like limits: never more than their dollar value.
const CARD_FIXED_FEE = perCurrency(30n, 'floor')
const ACH_FEE_CAP = perCurrency(500n, 'floor')
const WIRE_FEE = perCurrency(1500n, 'floor')

/**
 * The processing fee of a payment, in the smallest unit, never above the amount: card-like methods
 * 2.9% + 0.30 USD, ACH 0.8% capped at 5 USD, wire 15 USD flat, crypto 1%, wallet free. Percentages
 * round down to the smallest unit.
 */
export function feeFor(method: Method, currency: Currency, amount: bigint): bigint {
  let fee: bigint
  switch (method) {
    case 'card':
    case 'apple_pay':
    case 'google_pay':
      fee = (amount * 29n) / 1000n + CARD_FIXED_FEE[currency]
      break
    case 'ach': {
      const percent = (amount * 8n) / 1000n
      fee = percent < ACH_FEE_CAP[currency] ? percent : ACH_FEE_CAP[currency]
      break
    }
    case 'wire':
      fee = WIRE_FEE[currency]
      break
    case 'crypto':
      fee = amount / 100n
      break
    case 'wallet':
      fee = 0n
      break
  }
  return fee < amount ? fee : amount
}

/** Where money enters or leaves for each method. */
export function externalOf(method: Method): ExternalAccount {
  if (method === 'ach' || method === 'wire') return 'bank'
  if (method === 'crypto') return 'crypto_network'
  return 'card_network'
}

/** Which saved instruments each method can draw on (a bank account serves ACH and wire). */
const ACCEPTS: Record<Method, readonly InstrumentType[]> = {
  card: ['card'],
  apple_pay: ['apple_pay', 'card'],
  google_pay: ['google_pay', 'card'],
  ach: ['ach'],
  wire: ['wire', 'ach'],
  crypto: ['crypto'],
  wallet: [],
}

export function methodAccepts(method: Method, type: InstrumentType): boolean {
  return ACCEPTS[method].includes(type)
}

/** What a test instrument does when used, whoever saved it. */
export type Behaviour = 'succeed' | 'decline' | 'insufficient_funds' | 'return'

export interface InstrumentTemplate {
  type: InstrumentType
  behaviour: Behaviour
  brand?: string
  last4?: string
  bankName?: string
}

export interface Instrument extends InstrumentTemplate {
  id: string
  /** null for the shared test payment methods. */
  userId: string | null
  createdAt: string
}

/** Date shown as `createdAt` of the shared test payment methods, which exist from the start. */
export const TEST_METHODS_CREATED_AT = '2024-01-01T00:00:00.000Z'

const visa: InstrumentTemplate = {type: 'card', behaviour: 'succeed', brand: 'visa', last4: '4242'}
const mastercard: InstrumentTemplate = {
  type: 'card',
  behaviour: 'succeed',
  brand: 'mastercard',
  last4: '4444',
}
const declined: InstrumentTemplate = {type: 'card', behaviour: 'decline', brand: 'visa', last4: '0002'}
const noFunds: InstrumentTemplate = {
  type: 'card',
  behaviour: 'insufficient_funds',
  brand: 'visa',
  last4: '9995',
}
const applePay: InstrumentTemplate = {type: 'apple_pay', behaviour: 'succeed', brand: 'visa', last4: '4242'}
const googlePay: InstrumentTemplate = {type: 'google_pay', behaviour: 'succeed', brand: 'visa', last4: '4242'}
const achSuccess: InstrumentTemplate = {
  type: 'ach',
  behaviour: 'succeed',
  bankName: 'Sandbox Bank',
  last4: '6789',
}
const achReturned: InstrumentTemplate = {
  type: 'ach',
  behaviour: 'return',
  bankName: 'Sandbox Bank',
  last4: '1116',
}
const wireBank: InstrumentTemplate = {
  type: 'wire',
  behaviour: 'succeed',
  bankName: 'Sandbox Bank',
  last4: '7890',
}
const cryptoWallet: InstrumentTemplate = {type: 'crypto', behaviour: 'succeed', last4: 'c0de'}

/** The deterministic test payment methods every partner can use by id. */
export const TEST_PAYMENT_METHODS: ReadonlyMap<string, Instrument> = new Map(
  (
    [
      ['pm_card_visa', visa],
      ['pm_card_mastercard', mastercard],
      ['pm_card_declined', declined],
      ['pm_card_insufficient_funds', noFunds],
      ['pm_apple_pay', applePay],
      ['pm_google_pay', googlePay],
      ['pm_ach_success', achSuccess],
      ['pm_ach_returned', achReturned],
      ['pm_wire_bank', wireBank],
      ['pm_crypto_wallet', cryptoWallet],
    ] as const
  ).map(([id, template]) => [id, {...template, id, userId: null, createdAt: TEST_METHODS_CREATED_AT}]),
)

/** Test tokens that POST /users/{id}/payment-methods turns into a user's saved payment method. */
export const TEST_TOKENS: ReadonlyMap<string, InstrumentTemplate> = new Map([
  ['tok_visa', visa],
  ['tok_mastercard', mastercard],
  ['tok_card_declined', declined],
  ['tok_card_insufficient_funds', noFunds],
  ['tok_apple_pay', applePay],
  ['tok_google_pay', googlePay],
  ['tok_ach_success', achSuccess],
  ['tok_ach_returned', achReturned],
  ['tok_wire_bank', wireBank],
  ['tok_crypto_wallet', cryptoWallet],
])

/** The bank accounts a sandbox link can connect (`test_account` of the exchange). */
export const TEST_BANK_ACCOUNTS: Record<'ach_success' | 'ach_returned', InstrumentTemplate> = {
  ach_success: achSuccess,
  ach_returned: achReturned,
}

/** Why a payment through a returned bank account fails when it settles (a NACHA return code). */
export const ACH_RETURN_REASON = 'R01: insufficient funds in the bank account'
export const CARD_DECLINED_REASON = 'card_declined: the card issuer declined the payment'
export const CARD_NO_FUNDS_REASON = 'insufficient_funds: the card has insufficient funds'
