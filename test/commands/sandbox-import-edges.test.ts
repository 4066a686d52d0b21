import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {parse} from 'yaml'
import {type Cli, cliFor, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {comparable, storyOf} from '../helpers/story-import.js'

/**
 * `payctl sandbox import` at its edges: a user with nothing yet, a user in another currency, a
 * window that cuts a refund from what it refunds, the same customer imported twice, a user who is
 * not there.
 */
describe('sandbox import at its edges', () => {
  let temp: {dir: string; cleanup: () => void}
  let source: LocalSandbox
  let target: LocalSandbox
  let cli: Cli
  const id = async (...args: string[]) => {
    const r = await cli(...args, '--profile', 'local')
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    return r.stdout.trim()
  }
  const imported = async (user: string, ...more: string[]) => {
    const r = await cli(
      'sandbox',
      'import',
      '--from',
      'local',
      '--into',
      'target',
      '--user',
      user,
      '--json',
      ...more,
    )
    expect(r.exitCode, r.stderr).toBe(0)
    return r.json<{ids: Record<string, string>}>().ids['users.customer']!
  }
  const user = (email: string) =>
    id('users', 'create', '--email', email, '--first-name', 'Lin', '--last-name', 'Okafor')

  beforeAll(async () => {
    temp = tempConfigDir()
    source = await startLocalSandbox({}, {configDir: temp.dir})
    target = await startLocalSandbox({}, {configDir: temp.dir, profile: 'target'})
    cli = cliFor(temp.dir, {timeoutMs: 60_000})
  }, 120_000)
  afterAll(async () => {
    await target?.stop()
    await source?.stop()
    temp?.cleanup()
  })

  test('a user with no wallet and no transaction', async () => {
    const lin = await user('lin@example.test')
    const here = await imported(lin)
    const there = await storyOf(cli, ['--profile', 'local'], lin)
    expect(comparable(await storyOf(cli, ['--profile', 'target'], here))).toEqual(comparable(there))
  })

  test('a user in another currency, imported twice: two customers, each the same story', async () => {
    const kit = await user('kit@example.test')
    const gbp = await id(
      'wallets',
      'create',
      '--user',
      kit,
      '--currency',
      'GBP',
      '--initial-balance',
      '80.00GBP',
    )
    await id(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '12.34GBP',
      '--to',
      gbp,
      '--payment-method',
      'pm_card_visa',
    )
    const there = comparable(await storyOf(cli, ['--profile', 'local'], kit))
    const once = await imported(kit)
    const twice = await imported(kit)
    expect(twice).not.toBe(once)
    expect(comparable(await storyOf(cli, ['--profile', 'target'], once))).toEqual(there)
    expect(comparable(await storyOf(cli, ['--profile', 'target'], twice))).toEqual(there)
  })

  test('a window that starts between a payment and its refund', async () => {
    const max = await user('max@example.test')
    const usd = await id('wallets', 'create', '--user', max, '--currency', 'USD')
    const card = await id(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '50.00USD',
      '--to',
      usd,
      '--payment-method',
      'pm_card_visa',
    )
    await id('sandbox', 'advance', '10d')
    await id('transactions', 'refund', card, '--amount', '20.00USD')
    const there = comparable(await storyOf(cli, ['--profile', 'local'], max))
    const here = await imported(max, '--since', '5d')
    // Over the window imported, the same lines; the balance before it is the wallet's opening.
    const story = comparable(await storyOf(cli, ['--profile', 'target'], here))
    expect(story.wallets).toEqual(there.wallets)
    const window = async (profile: string, who: string) => {
      const r = await cli('users', 'inspect', who, '--json', '--since', '5d', '--profile', profile)
      expect(r.exitCode, r.stderr).toBe(0)
      return r.json<{timeline: Record<string, unknown>[]}>().timeline.map((l) => [l.what, l.amount, l.status])
    }
    expect(await window('target', here)).toEqual(await window('local', max))
    expect(await window('target', here)).toEqual([['refund', -1930, 'completed']])
    const file = join(temp.dir, 'cut.yaml')
    const written = await cli(
      'sandbox',
      'import',
      '--from',
      'local',
      '--user',
      max,
      '--since',
      '5d',
      '--file',
      file,
    )
    expect(written.exitCode, written.stderr).toBe(0)
    const doc = parse(readFileSync(file, 'utf8')) as {transactions: Record<string, Record<string, string>>}
    const refund = Object.values(doc.transactions).find((t) => t.type === 'refund')!
    expect(refund.refund_of).toMatch(/^\$\{transactions\.t\d+\.id\}$/)
    const original = doc.transactions[refund.refund_of!.split('.')[1]!]!
    expect(original).toMatchObject({type: 'deposit', amount: '5000', status: 'completed'})
    const seeded = await cli('seed', file, '--profile', 'target', '--json')
    expect(seeded.exitCode, seeded.stderr).toBe(0)
  })

  test('a user who is not there: said plainly, and nothing loaded', async () => {
    const users = async () => (await cli('users', 'list', '--profile', 'target', '--json')).stdout
    const before = await users()
    for (const who of ['usr_0123456789abcdef01234567', 'nobody@example.test']) {
      const r = await cli('sandbox', 'import', '--from', 'local', '--into', 'target', '--user', who)
      expect(r.exitCode, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/^NOT_FOUND: No user /)
    }
    expect(await users()).toBe(before)
  })
})
