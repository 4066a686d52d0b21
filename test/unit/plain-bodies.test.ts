import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {CreateTransactionSchema, PAYMENT_METHODS} from '../../src/contract/transactions.js'
import {plainTransactionBody} from '../../src/sandbox/http/validation.js'

const id = fc.oneof(
  fc.string({minLength: 0, maxLength: 260}),
  fc.constantFrom('wal_1', 'USD', ''),
  fc.constant(null),
)
const body = fc.record(
  {
    amount: fc.oneof(
      fc.integer(),
      fc.double(),
      fc.constantFrom(0, 1, -1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, Infinity, Number.NaN),
      fc.bigInt(),
      fc.string(),
    ),
    currency: id,
    method: fc.oneof(fc.constantFrom(...PAYMENT_METHODS), fc.string()),
    paymentMethodId: id,
    sourceWalletId: id,
    destinationWalletId: id,
    description: fc.oneof(fc.string({maxLength: 510}), fc.integer()),
    metadata: fc.dictionary(fc.string(), fc.string()),
    idempotencyKey: fc.string(),
    other: fc.anything(),
  },
  {requiredKeys: []},
)

describe('a POST /transactions body read in plain code', () => {
  it('is what the schema reads it as, or left to the schema', () => {
    fc.assert(
      fc.property(fc.oneof(body, fc.anything()), (value) => {
        const plain = plainTransactionBody(value)
        if (plain === undefined) return
        const parsed = CreateTransactionSchema.safeParse(value)
        expect(parsed.success).toBe(true)
        expect(Object.entries(plain)).toEqual(Object.entries(parsed.data!))
      }),
      {numRuns: 5000},
    )
  })

  it('takes the everyday transfer, payment and top-up', () => {
    for (const value of [
      {amount: 100, currency: 'USD', method: 'wallet', sourceWalletId: 'wal_a', destinationWalletId: 'wal_b'},
      {
        amount: 5,
        currency: 'EUR',
        method: 'card',
        destinationWalletId: 'wal_a',
        paymentMethodId: 'pm_card_visa',
      },
      {amount: 1, currency: 'USD', method: 'ach', sourceWalletId: 'wal_a', description: 'rent'},
    ]) {
      expect(plainTransactionBody(value)).toEqual(CreateTransactionSchema.parse(value))
    }
  })
})
