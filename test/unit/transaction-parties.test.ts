import {describe, expect, test} from 'vitest'
import {missingParties, type PartyField, partiesProblem} from '../../src/contract/transactions.js'

const FLAGS: Record<PartyField, string> = {
  sourceWalletId: '--from',
  destinationWalletId: '--to',
  paymentMethodId: '--payment-method',
}

describe("a transaction's parties, one set of rules for the sandbox and the command", () => {
  test.each([
    [{method: 'wallet', destinationWalletId: 'wal_b'}, 'sourceWalletId', 'missing'],
    [{method: 'wallet', sourceWalletId: 'wal_a'}, 'destinationWalletId', 'missing'],
    [
      {method: 'wallet', sourceWalletId: 'wal_a', destinationWalletId: 'wal_a'},
      'destinationWalletId',
      'conflict',
    ],
    [
      {
        method: 'wallet',
        sourceWalletId: 'wal_a',
        destinationWalletId: 'wal_b',
        paymentMethodId: 'pm_card_visa',
      },
      'paymentMethodId',
      'conflict',
    ],
    [{method: 'wire', sourceWalletId: 'wal_a', destinationWalletId: 'wal_b'}, 'sourceWalletId', 'conflict'],
    [{method: 'wire'}, 'destinationWalletId', 'missing'],
    [{method: 'card', destinationWalletId: 'wal_b'}, 'paymentMethodId', 'missing'],
    [{method: 'ach', sourceWalletId: 'wal_a'}, 'paymentMethodId', 'missing'],
  ] as const)('%j breaks the rule of %s (%s)', (parties, field, kind) => {
    expect(partiesProblem(parties)).toMatchObject({field, kind})
  })

  test('let the valid ones through', () => {
    for (const parties of [
      {method: 'wallet', sourceWalletId: 'wal_a', destinationWalletId: 'wal_b'},
      {method: 'wallet', sourceWalletId: 'wal_a', destinationWalletId: 'wal_b', paymentMethodId: 'wal_a'},
      {method: 'card', destinationWalletId: 'wal_b', paymentMethodId: 'pm_card_visa'},
      {method: 'wire', sourceWalletId: 'wal_a'},
      {method: 'crypto', destinationWalletId: 'wal_b'},
    ]) {
      expect(partiesProblem(parties), JSON.stringify(parties)).toBeUndefined()
    }
  })

  test('name the fields as the caller calls them: the body the sandbox read, the flags payctl took', () => {
    const both = {method: 'wire', sourceWalletId: 'wal_a', destinationWalletId: 'wal_b'}
    expect(partiesProblem(both)?.reason).toBe(
      'A wire transaction moves money into one wallet (destinationWalletId) or out of one (sourceWalletId), not both',
    )
    expect(partiesProblem(both, (field) => FLAGS[field])?.reason).toBe(
      'A wire transaction moves money into one wallet (--to) or out of one (--from), not both',
    )
  })

  test('list what a method lacks in the order to ask for it', () => {
    expect(missingParties({method: 'wallet'})).toEqual(['sourceWalletId', 'destinationWalletId'])
    expect(missingParties({method: 'ach'})).toEqual(['paymentMethodId', 'destinationWalletId'])
    expect(missingParties({method: 'card', sourceWalletId: 'wal_a'})).toEqual(['paymentMethodId'])
    expect(missingParties({method: 'wire', sourceWalletId: 'wal_a'})).toEqual([])
  })
})
