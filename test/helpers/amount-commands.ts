import {expect} from 'vitest'
import type {Cli} from './cli.js'

/** Who pays whom in the amount tests: two users with USD wallets, Alice's holding 500.00 USD. */
export interface AmountParties {
  alice: string
  bob: string
  wallet: string
}

/** Make the parties through the commands of `cli` (a sandbox's). */
export async function amountParties(cli: Cli): Promise<AmountParties> {
  const id = async (...args: string[]) => {
    const r = await cli(...args)
    expect(r.exitCode, r.stderr).toBe(0)
    return r.stdout.trim()
  }
  const alice = await id(
    'users',
    'create',
    '--email',
    'alice@example.test',
    '--first-name',
    'A',
    '--last-name',
    'L',
  )
  const bob = await id(
    'users',
    'create',
    '--email',
    'bob@example.test',
    '--first-name',
    'B',
    '--last-name',
    'O',
  )
  const wallet = await id(
    'wallets',
    'create',
    '--user',
    alice,
    '--currency',
    'USD',
    '--initial-balance',
    '500.00USD',
  )
  await id('wallets', 'create', '--user', bob, '--currency', 'USD')
  return {alice, bob, wallet}
}

/**
 * Each command that takes an amount and its currency: its name, and its arguments given `amount`
 * (one rule for all of them: the currency comes from --currency or the amount's suffix).
 */
export function amountCommands(p: () => AmountParties): [string, (amount: string) => string[]][] {
  return [
    [
      'transactions create',
      (a) => [
        'transactions',
        'create',
        '--method',
        'card',
        '--amount',
        a,
        '--to',
        p().wallet,
        '--payment-method',
        'pm_card_visa',
      ],
    ],
    ['p2p send', (a) => ['p2p', 'send', '--from', p().alice, '--to', p().bob, '--amount', a]],
    [
      'payments create',
      (a) => ['payments', 'create', '--user', p().alice, '--amount', a, '--merchant', 'Corner Shop'],
    ],
    ['payments eligibility', (a) => ['payments', 'eligibility', '--user', p().alice, '--amount', a]],
    [
      'bnpl payments create',
      (a) => ['bnpl', 'payments', 'create', '--user', p().alice, '--amount', a, '--merchant', 'Allbirds'],
    ],
    ['bnpl prequalify', (a) => ['bnpl', 'prequalify', '--user', p().alice, '--amount', a]],
  ]
}
