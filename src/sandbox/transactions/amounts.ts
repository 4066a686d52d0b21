import {z} from 'zod'
import {minorFrom} from '../../contract/money.js'
import {CreateTransactionSchema, CreateWalletSchema} from '../../contract/resources.js'
import {RefundRequestSchema, UpdateWalletSchema} from '../../contract/transactions.js'
import {
  EligibilityRequestSchema,
  P2PRequestSchema,
  WalletPaymentRequestSchema,
} from '../../contract/wallet-product.js'
import {MAX_EXACT_DIGITS} from '../json.js'

/** A number the request parser left inexact because its literal was too long (see MAX_EXACT_DIGITS). */
function isOutOfRange(value: unknown): boolean {
  return typeof value === 'number' && (!Number.isFinite(value) || Number.isInteger(value))
}

/**
 * An amount in the smallest currency unit, as the sandbox reads it: a safe integer or a bigint
 * (request bodies are parsed with parseRequestJson, which turns integers beyond 2^53 into bigint),
 * always handed on as bigint. A number that is not a safe integer here was a fractional literal, or
 * one too long to read exactly.
 */
function minorAmount(minimum: 0n | 1n) {
  return z.unknown().transform((value, ctx): bigint => {
    const amount = minorFrom(value)
    if (amount === undefined) {
      ctx.addIssue({
        code: 'custom',
        message:
          value === undefined
            ? 'Required'
            : isOutOfRange(value)
              ? `Out of range: an amount has at most ${MAX_EXACT_DIGITS} digits`
              : 'Expected an integer amount in the smallest currency unit (cents, wei…)',
        input: value,
      })
      return z.NEVER
    }
    if (amount < minimum) {
      ctx.addIssue({
        code: 'custom',
        message: minimum === 0n ? 'Expected an amount of 0 or more' : 'Expected an amount above 0',
        input: value,
      })
      return z.NEVER
    }
    return amount
  })
}

/** A positive amount (payments, refunds, limits). */
export const PositiveAmount = minorAmount(1n)
/** A non-negative amount (a wallet's initial balance). */
export const NonNegativeAmount = minorAmount(0n)

// The contract's request bodies with their amounts read exactly. Built once, at load.
export const CreateWalletInput = CreateWalletSchema.extend({initialBalance: NonNegativeAmount.optional()})
export const CreateTransactionInput = CreateTransactionSchema.extend({amount: PositiveAmount})
export const RefundInput = RefundRequestSchema.extend({amount: PositiveAmount.optional()})
export const UpdateWalletInput = UpdateWalletSchema.extend({
  limits: z
    .strictObject({
      daily: PositiveAmount.optional(),
      monthly: PositiveAmount.optional(),
      transaction: PositiveAmount.optional(),
    })
    .optional(),
})
export const EligibilityInput = EligibilityRequestSchema.extend({amount: PositiveAmount})
export const WalletPaymentInput = WalletPaymentRequestSchema.extend({amount: PositiveAmount})
export const P2PInput = P2PRequestSchema.extend({amount: PositiveAmount})
