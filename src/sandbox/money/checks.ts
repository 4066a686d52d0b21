import {minorToMajorText} from '../../contract/money/amounts.js'
import {type Currency, isSupportedCurrency} from '../../contract/money/currencies.js'
import {ApiError, invalidCurrency} from '../http/api-error.js'
import {jsonAmount} from '../http/json.js'
import {MINIMUM_AMOUNT} from './catalog.js'
import type {WalletState} from './ledger.js'

/**
 * The business checks every movement of money makes, each as a problem (an error to answer with,
 * or none) for the callers that report several at once (the wallet product's eligibility), and as
 * a requirement that throws for the others.
 */

/** `code`, if the sandbox supports it: INVALID_CURRENCY naming `field` otherwise. */
export function supportedCurrency(code: string, field = 'currency'): Currency {
  if (!isSupportedCurrency(code)) throw invalidCurrency(code, field)
  return code
}

export function minimumProblem(amount: bigint, currency: Currency): ApiError | undefined {
  const minimum = MINIMUM_AMOUNT[currency]
  if (amount >= minimum) return undefined
  return new ApiError(
    'AMOUNT_TOO_SMALL',
    `Amount is below the minimum of ${minorToMajorText(minimum, currency)} ${currency} (0.50 USD at the sandbox rate)`,
    {minimum: jsonAmount(minimum), currency},
  )
}

export function activeProblem(wallet: WalletState): ApiError | undefined {
  if (wallet.status === 'active') return undefined
  return new ApiError('WALLET_NOT_ACTIVE', `Wallet ${wallet.id} is ${wallet.status}`, {
    walletId: wallet.id,
    status: wallet.status,
  })
}

export function fundsProblem(wallet: WalletState, amount: bigint): ApiError | undefined {
  if (wallet.available >= amount) return undefined
  return new ApiError('INSUFFICIENT_FUNDS', `Wallet ${wallet.id} has insufficient funds`, {
    required: jsonAmount(amount),
    available: jsonAmount(wallet.available),
    currency: wallet.currency,
    walletId: wallet.id,
  })
}

function refuse(problem: ApiError | undefined): void {
  if (problem !== undefined) throw problem
}

/** At least the minimum amount of `currency` (0.50 USD at the sandbox rate): AMOUNT_TOO_SMALL otherwise. */
export const requireMinimum = (amount: bigint, currency: Currency): void =>
  refuse(minimumProblem(amount, currency))

/** An active wallet: WALLET_NOT_ACTIVE otherwise. */
export const requireActive = (wallet: WalletState): void => refuse(activeProblem(wallet))

/** A wallet with `amount` available: INSUFFICIENT_FUNDS otherwise. */
export const requireFunds = (wallet: WalletState, amount: bigint): void =>
  refuse(fundsProblem(wallet, amount))
