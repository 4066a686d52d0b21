import {expect} from 'vitest'
import {type Cli, cliFor} from './cli.js'
import {type LocalSandbox, startLocalSandbox} from './local-sandbox.js'
import {type Receiver, startReceiver} from './webhooks-receiver.js'

/** The records of the support story, by what they are. */
export interface SupportStory {
  sandbox: LocalSandbox
  /** The sandbox's commands, in this process. */
  cli: Cli
  ada: string
  usd: string
  eur: string
  bobs: string
  card: string
  ach: string
  refund: string
  stop: () => Promise<void>
}

/**
 * The support ticket answered by one command (docs/support.md), built through the CLI
 * on a sandbox in this process: a customer with two wallets, a card top-up, a failed ACH, a wallet
 * transfer, a partial refund, a round-up transfer, a BNPL instalment and a webhook delivery that
 * failed then succeeded, three days ago on the partner's clock.
 */
export async function supportStory(): Promise<SupportStory> {
  const sandbox = await startLocalSandbox({webhookRetries: 'fast'})
  // Fails the first delivery it gets, then takes every one.
  let receiver: Receiver | undefined
  try {
    receiver = await startReceiver({respond: (_r, index) => (index === 0 ? 500 : 200)})
    const cli = cliFor(sandbox, {timeoutMs: 60_000})
    const id = async (...args: string[]) => {
      const r = await cli(...args)
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      return r.stdout.trim()
    }
    await id('webhooks', 'register', '--url', receiver.url, '--events', 'transaction.*')
    const ada = await id(
      'users',
      'create',
      '--email',
      'ada@example.test',
      '--first-name',
      'Ada',
      '--last-name',
      'L',
    )
    const usd = await id('wallets', 'create', '--user', ada, '--currency', 'USD')
    const eur = await id('wallets', 'create', '--user', ada, '--currency', 'EUR')
    const bob = await id(
      'users',
      'create',
      '--email',
      'bob@example.test',
      '--first-name',
      'Bob',
      '--last-name',
      'B',
    )
    const bobs = await id('wallets', 'create', '--user', bob, '--currency', 'USD')
    const pay = (method: string, amount: string, to: string, pm: string) =>
      id('transactions', 'create', '--method', method, '--amount', amount, '--to', to, '--payment-method', pm)
    const card = await pay('card', '200.00USD', usd, 'pm_card_visa')
    await pay('card', '50.00EUR', eur, 'pm_card_visa')
    const ach = await pay('ach', '40.00USD', usd, 'pm_ach_returned')
    await id(
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '25.00USD',
      '--from',
      usd,
      '--to',
      bobs,
    )
    const refund = await id('transactions', 'refund', card, '--amount', '10.00USD')
    await id(
      'roundups',
      'settings',
      'set',
      ada,
      '--enabled',
      '--multiplier',
      '1',
      '--max',
      '5',
      '--destination-account',
      bobs,
    )
    await id(
      'roundups',
      'process',
      '--user',
      ada,
      '--amount',
      '4.35',
      '--merchant',
      'Cafe',
      '--transaction-id',
      'p-1',
    )
    await id('roundups', 'transfer', ada)
    await id('bnpl', 'payments', 'create', '--user', ada, '--amount', '80.00USD', '--merchant', 'Shoes')
    expect((await cli('sandbox', 'advance', '3d')).exitCode).toBe(0)
    // The failed first delivery is retried half a second later (webhookRetries 'fast').
    const deadline = Date.now() + 30_000
    for (;;) {
      const pending = await cli('events', 'list', '--delivery', 'pending', '--json')
      if (pending.json<{events: unknown[]}>().events.length === 0) break
      if (Date.now() > deadline) throw new Error(`deliveries still pending:\n${pending.stdout}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const opened = receiver
    return {
      sandbox,
      cli,
      ada,
      usd,
      eur,
      bobs,
      card,
      ach,
      refund,
      stop: async () => {
        await opened.close()
        await sandbox.stop()
      },
    }
  } catch (err) {
    await receiver?.close()
    await sandbox.stop()
    throw err
  }
}
