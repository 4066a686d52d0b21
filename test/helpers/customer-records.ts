import type {Cli} from './cli.js'

/**
 * The records of a support ticket about a customer, Ada (docs/support.md): shared by
 * the tests of finding and reading them (test/commands/finding-users.test.ts) and of how they fit
 * an 80-column terminal (test/processes/customer-tables-80-columns.test.ts).
 */
export interface CustomerRecords {
  /** Ada Lovelace, Ada@Example.test. */
  ada: string
  /** Ada's USD wallet, with a long label. */
  usd: string
  /** Ada's EUR wallet. */
  eur: string
  /** Bob, whom Ada paid. */
  bob: string
  /** Bob's USD wallet. */
  bobs: string
  /** A card deposit of 100.00 USD to Ada's USD wallet, 10.00 USD of it refunded. */
  card: string
  /** An ACH deposit of 1,000.00 USD to it, returned (R01) an hour later. */
  ach: string
  /** 40.00 USD from Ada's USD wallet to Bob's. */
  transfer: string
}

/**
 * Make the records with `cli`, the commands of a sandbox whose ACH settles after an hour, and move
 * its clock two days on. Grace Hopper (external id crm-7) is there too.
 */
export async function customerRecords(cli: Cli): Promise<CustomerRecords> {
  const id = async (...args: string[]) => {
    const r = await cli(...args)
    if (r.exitCode !== 0) throw new Error(`payctl ${args.join(' ')}: exit ${r.exitCode}\n${r.stderr}`)
    return r.stdout.trim()
  }
  const user = (email: string, first: string, last: string, ...more: string[]) =>
    id('users', 'create', '--email', email, '--first-name', first, '--last-name', last, ...more)
  const ada = await user('Ada@Example.test', 'Ada', 'Lovelace')
  await user('grace@example.test', 'Grace', 'Hopper', '--external-id', 'crm-7')
  const bob = await user('bob@example.test', 'Bob', 'B')
  const label = 'everyday spending, groceries and rent'
  const usd = await id('wallets', 'create', '--user', ada, '--currency', 'USD', '--label', label)
  const eur = await id('wallets', 'create', '--user', ada, '--currency', 'EUR')
  const bobs = await id('wallets', 'create', '--user', bob, '--currency', 'USD')
  const deposit = (method: string, amount: string, paymentMethod: string) =>
    id(
      'transactions',
      'create',
      '--method',
      method,
      '--amount',
      amount,
      '--to',
      usd,
      '--payment-method',
      paymentMethod,
    )
  const card = await deposit('card', '100.00USD', 'pm_card_visa')
  const ach = await deposit('ach', '1000.00USD', 'pm_ach_returned')
  const transfer = await id(
    'transactions',
    'create',
    '--method',
    'wallet',
    '--amount',
    '40.00USD',
    '--from',
    usd,
    '--to',
    bobs,
  )
  await id('transactions', 'refund', card, '--amount', '10.00USD')
  await id('sandbox', 'advance', '2d')
  return {ada, usd, eur, bob, bobs, card, ach, transfer}
}
