import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {EVENT_NAMES} from '../../src/contract/events/envelope.js'
import {settableNames} from '../../src/contract/trigger-overrides.js'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

interface CliError {
  error: {code: string; message: string; exitCode: number}
}

/** `payctl webhooks trigger` with overrides (docs/webhooks.md). */
describe('webhooks trigger with overrides', () => {
  let sandbox: LocalSandbox
  let cli: Cli
  const id = async (args: string[]) => {
    const r = await cli(...args)
    expect(r.exitCode, r.stderr).toBe(0)
    return r.stdout.trim()
  }

  beforeAll(async () => {
    sandbox = await startLocalSandbox({webhookRetries: 'fast'})
    cli = cliFor(sandbox)
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('prints the event as delivered, about the user and wallet named, the transaction real', async () => {
    const user = await id([
      'users',
      'create',
      '--email',
      'ada@example.test',
      '--first-name',
      'Ada',
      '--last-name',
      'L',
    ])
    const wallet = await id(['wallets', 'create', '--user', user, '--currency', 'USD'])
    const r = await cli(
      'webhooks',
      'trigger',
      'transaction.failed',
      '--user',
      user,
      '--wallet',
      wallet,
      '--set',
      'amount=5000',
      '--set',
      'metadata.order=42',
      '--json',
    )
    expect(r.exitCode, r.stderr).toBe(0)
    const event = r.json<{id: string; event: string; data: Record<string, unknown>; timestamp: string}>()
    expect(Object.keys(event)).toEqual(['id', 'event', 'data', 'timestamp'])
    expect(event).toMatchObject({
      event: 'transaction.failed',
      data: {amount: 5000, currency: 'USD', status: 'failed', metadata: {order: '42'}},
    })
    const txn = await cli('transactions', 'get', String(event.data.id), '--json')
    expect(txn.json()).toMatchObject({
      id: event.data.id,
      amount: 5000,
      status: 'failed',
      destinationWalletId: wallet,
      metadata: {order: '42'},
    })
    // The delivery log holds the very event printed.
    const logged = await cli('events', 'get', event.id, '--json')
    expect(logged.json()).toMatchObject({id: event.id, data: event.data})
    // A declined card moves no money: the wallet is as it was.
    expect((await cli('wallets', 'get', wallet, '--json')).json()).toMatchObject({balance: {available: 0}})
  })

  it('takes a decimal amount with its currency, which then is the event’s', async () => {
    const r = await cli(
      'webhooks',
      'trigger',
      'bnplsvc.payment.created',
      '--set',
      'amount=120.00EUR',
      '--json',
    )
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({data: {amount: 12_000, currency: 'EUR'}})
  })

  it('refuses bad overrides before sending anything, naming the flag (exit 2)', async () => {
    const refused = async (args: string[], ...says: string[]) => {
      const r = await cli('webhooks', 'trigger', ...args)
      expect(r.exitCode, r.stderr).toBe(2)
      for (const text of says) expect(r.stderr).toContain(text)
      const json = await cli('webhooks', 'trigger', ...args, '--json')
      expect(json.json<CliError>().error).toMatchObject({code: 'INVALID_OVERRIDE', exitCode: 2})
    }
    await refused(
      ['transaction.failed', '--set', 'amout=5000'],
      '--set amout=5000',
      'transaction.failed has no field "amout"',
      'failureReason',
    )
    await refused(['transaction.failed', '--set', 'amount=lots'], '--set amount=lots', 'is not an amount')
    await refused(['transaction.failed', '--set', 'amount=0'], 'Expected an amount above 0')
    await refused(
      ['transaction.failed', '--set', 'status=completed'],
      'status of the transaction cannot be set',
    )
    await refused(['wallet.created', '--wallet', 'wal_0123'], '--wallet', 'wallet.created takes no wallet')
    await refused(['walletsvc.card.created', '--set', 'label'], '--set label', 'expected field=value')
    await refused(['roundupsvc.roundup.processed', '--set', 'multiplier=4'], 'multiplier')
  })

  it('fails with the API’s refusal, exit 1, when the wallet named cannot make the event', async () => {
    const user = await id([
      'users',
      'create',
      '--email',
      'bob@example.test',
      '--first-name',
      'Bob',
      '--last-name',
      'B',
    ])
    const wallet = await id(['wallets', 'create', '--user', user, '--currency', 'USD'])
    const r = await cli(
      'webhooks',
      'trigger',
      'transfer.completed',
      '--wallet',
      wallet,
      '--set',
      'amount=5000',
    )
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('INSUFFICIENT_FUNDS')
  })

  it('lists in --help the overrides of each of the 14 events, from the one table', async () => {
    const r = await cli('webhooks', 'trigger', '--help')
    expect(r.exitCode).toBe(0)
    const help = r.stdout.replace(/\s+/g, ' ')
    for (const event of EVENT_NAMES) {
      expect(help).toContain(`${event}: `)
      for (const name of settableNames(event)) expect(help).toContain(name)
    }
  })
})
