import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {type Cli, cliFor, listedCount, ROOT} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * What `payctl seed` makes of a fixture, and what it refuses before sending anything. Each test
 * counts what its sandbox holds, so each has one of its own, served in this process. What needs a
 * process of its own (a run killed with SIGKILL, Ctrl-C, a terminal) is in test/processes/seed.test.ts.
 */
let sandbox: LocalSandbox
let cli: Cli

beforeEach(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox, {timeoutMs: 60_000})
})
afterEach(async () => {
  await sandbox.stop()
})

describe('payctl seed', () => {
  it('seeds the shop example, references resolved, and prints ids by fixture name', async () => {
    const r = await cli('seed', join(ROOT, 'examples/fixtures/shop.yaml'), '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const ids = r.json<{
      users: Record<string, {id: string}>
      wallets: Record<string, {id: string}>
      transactions: Record<string, {id: string}>
    }>()
    expect(ids.users.alice!.id).toMatch(/^usr_/)
    const wallet = (await cli('wallets', 'get', ids.wallets.alice_usd!.id, '--json')).json<{
      userId: string
      balance: {available: number}
    }>()
    expect(wallet.userId).toBe(ids.users.alice!.id)
    const lunch = (await cli('transactions', 'get', ids.transactions.lunch!.id, '--json')).json<{
      sourceWalletId: string
      destinationWalletId: string
    }>()
    expect(lunch).toMatchObject({
      sourceWalletId: ids.wallets.alice_usd!.id,
      destinationWalletId: ids.wallets.bob_usd!.id,
    })
    // A second run creates nothing new and answers the same ids.
    const again = await cli('seed', join(ROOT, 'examples/fixtures/shop.yaml'), '--json')
    expect(again.json()).toEqual(ids)
    expect(await listedCount(cli, 'wallets')).toBe(4)
    // Round-ups: the coffee (4.35) rounds up to 0.65, doubled, under the 5.00 cap.
    const pending = (await cli('roundups', 'pending', ids.users.alice!.id, '--json')).json<{
      total: number | string
    }>()
    expect(Number(pending.total)).toBeCloseTo(1.3)
    const bike = (
      await cli(
        'bnpl',
        'payments',
        'get',
        (ids as unknown as {bnpl_payments: {bike: {id: string}}}).bnpl_payments.bike.id,
        '--json',
      )
    ).json<{amount: number}>()
    expect(bike.amount).toBe(12000)
  })

  // Each fixture has valid records too: nothing at all may be created when any part is wrong.
  const ok = 'users:\n  ok: {email: ok@example.test, first_name: O, last_name: K}\n'
  const okWallet = 'wallets:\n  okw: {user: "${users.ok.id}", currency: USD}\n'
  it.each([
    [
      `${ok}${okWallet}  w: {user: "\${users.ghost.id}", currency: USD}\n`,
      /bad\.yaml:5:3: wallets\.w: .*names no record/,
    ],
    [
      `${ok}  a:\n    email: a@example.test\n    first_name: A\n${okWallet}`,
      /bad\.yaml:3:3: users\.a\.last_name/,
    ],
    [
      `${ok}  a: {email: a@example.test, first_name: A, last_name: B, age: 3}\n${okWallet}`,
      /bad\.yaml:3:3: users\.a: Unrecognized key: "age"/,
    ],
    // What the service would refuse, caught before anything is sent.
    [
      `${ok}${okWallet}  w: {user: "\${users.ok.id}", currency: XYZ}\n`,
      /bad\.yaml:5:\d+: wallets\.w\.currency: unsupported currency "XYZ"/,
    ],
    [
      `${ok}${okWallet}  w: {user: "\${users.ok.id}", currency: EUR, initial_balance: 12.345EUR}\n`,
      /bad\.yaml:5:\d+: wallets\.w\.initial_balance: .*12\.345EUR/,
    ],
    [
      `${ok}  a: {email: not-an-email, first_name: A, last_name: B}\n${okWallet}`,
      /bad\.yaml:3:\d+: users\.a\.email: "not-an-email" is not an email/,
    ],
    // An unset variable, at the field it is in.
    [
      `${ok}${okWallet}  w:\n    user: "\${users.ok.id}"\n    currency: "\${env.PAYCTL_UNSET_IN_TESTS}"\n`,
      /bad\.yaml:7:5: wallets\.w\.currency: environment variable PAYCTL_UNSET_IN_TESTS is not set/,
    ],
    [
      `${ok}${okWallet}  again: {user: "\${users.ok.id}", currency: usd}\n`,
      /bad\.yaml:5:\d+: wallets\.again\.currency: wallets\.okw is already this user's USD wallet/,
    ],
  ])('rejects a bad fixture with a pointed message and creates nothing: %#', async (text, message) => {
    const fixture = join(sandbox.configDir, 'bad.yaml')
    writeFileSync(fixture, text)
    const r = await cli('seed', fixture)
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(await listedCount(cli, 'wallets')).toBe(0)
  })

  it('creates wallets with the balances the command line would read from the same text', async () => {
    const fixture = join(sandbox.configDir, 'money.yaml')
    writeFileSync(
      fixture,
      [
        'users:',
        '  u: {email: money@example.test, first_name: M, last_name: O}',
        'wallets:',
        '  minor: {user: "${users.u.id}", currency: USD, initial_balance: 10}',
        '  suffixed: {user: "${users.u.id}", currency: EUR, initial_balance: "10.50EUR"}',
        '  spaced: {user: "${users.u.id}", currency: GBP, initial_balance: 10.50 GBP}',
        '  zero: {user: "${users.u.id}", currency: JPY, initial_balance: 0}',
        '  wei: {user: "${users.u.id}", currency: ETH, initial_balance: 1234567890123456789012}',
        '',
      ].join('\n'),
    )
    const r = await cli('seed', fixture, '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const ids = r.json<{wallets: Record<string, {id: string}>}>().wallets
    const available = async (name: string) => {
      const got = await cli('wallets', 'get', ids[name]!.id, '--json')
      expect(got.exitCode, got.stderr).toBe(0)
      // The exact digits: JSON.parse would round an amount past 2^53.
      return /"available":\s*(-?\d+)/.exec(got.stdout)![1]
    }
    expect(await available('minor')).toBe('10')
    expect(await available('suffixed')).toBe('1050')
    expect(await available('spaced')).toBe('1050')
    expect(await available('zero')).toBe('0')
    expect(await available('wei')).toBe('1234567890123456789012')
  })

  it('refuses the amounts the command line refuses, each at its place with the forms that work', async () => {
    const money = join(sandbox.configDir, 'refused.yaml')
    writeFileSync(
      money,
      [
        'users:',
        '  u: {email: refused@example.test, first_name: R, last_name: F}',
        'wallets:',
        '  a: {user: "${users.u.id}", currency: USD, initial_balance: 10.00}',
        '  b: {user: "${users.u.id}", currency: EUR, initial_balance: 10.50}',
        '  c: {user: "${users.u.id}", currency: GBP, initial_balance: 1e3}',
        '  d: {user: "${users.u.id}", currency: CHF, initial_balance: 0.5}',
        '  e: {user: "${users.u.id}", currency: CAD, initial_balance: -500}',
        '',
      ].join('\n'),
    )
    const r = await cli('seed', money)
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('INVALID_FIXTURE: 5 problems in refused.yaml; nothing was sent:\n')
    for (const line of [
      `${money}:4:45: wallets.a.initial_balance: "10.00" has decimals but no currency, which --amount refuses too: write 1000 (the smallest unit) or 10.00USD`,
      `${money}:5:45: wallets.b.initial_balance: "10.50" has decimals but no currency, which --amount refuses too: write 1050 (the smallest unit) or 10.50EUR`,
      `${money}:6:45: wallets.c.initial_balance: "1e3" is not an amount: use an integer in the smallest unit (1234) or a decimal with its currency (12.34USD)`,
      `${money}:7:45: wallets.d.initial_balance: "0.5" has decimals but no currency, which --amount refuses too: write 50 (the smallest unit) or 0.5CHF`,
      `${money}:8:45: wallets.e.initial_balance: "-500" must be 0 or more`,
    ])
      expect(r.stderr).toContain(`\n  ${line}\n`)
    expect(await listedCount(cli, 'wallets')).toBe(0)
  })

  it('reports all seven mistakes of a fixture in one run, each at its place, and creates nothing', async () => {
    const seven = join(sandbox.configDir, 'seven.yaml')
    writeFileSync(
      seven,
      'users:\n  alice: {email: alice@example.test, first_name: A, last_name: A}\n  bob: {email: bob-at-example, first_name: B, last_name: B}\n  carol: {email: carol@example.test, first_name: C}\n  alice: {email: a2@example.test, first_name: A, last_name: B}\nwallets:\n  a: {user: "${users.alice.id}", currency: USD, initial_balance: 12.345USD}\n  b: {user: "${users.bob.id}", currency: XYZ}\n  g: {user: "${users.ghost.id}", currency: USD}\ntransactions:\n  t: {method: cheque, amount: 100, currency: USD, to: "${wallets.a.id}"}\n',
    )
    const all = await cli('seed', seven)
    expect(all.exitCode).toBe(2)
    const places = all.stderr
      .split('\n')
      .filter((l) => l.startsWith(`  ${seven}:`))
      .map((l) => /:(\d+:\d+): (\S+)/.exec(l)!.slice(1).join(' '))
    expect(all.stderr).toContain('INVALID_FIXTURE: 7 problems in seven.yaml; nothing was sent:')
    expect(places).toEqual([
      '3:9 users.bob.email:',
      '4:3 users.carol.last_name:',
      '5:3 users.alice:',
      '7:49 wallets.a.initial_balance:',
      '8:32 wallets.b.currency:',
      '9:3 wallets.g:',
      '11:7 transactions.t.method:',
    ])
    expect(await listedCount(cli, 'wallets')).toBe(0)
  })

  it('prints the ids of records named constructor or toString like any other', async () => {
    const fixture = join(sandbox.configDir, 'names.yaml')
    writeFileSync(
      fixture,
      [
        'users:',
        '  constructor:',
        '    count: 2',
        '    email: c{{n}}@example.test',
        '    first_name: C',
        '    last_name: Onstructor',
        '  toString:',
        '    email: t@example.test',
        '    first_name: T',
        '    last_name: OString',
        '',
      ].join('\n'),
    )
    const r = await cli('seed', fixture, '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const users = r.json<{users: Record<string, unknown>}>().users
    expect(Object.keys(users).sort()).toEqual(['constructor', 'toString'])
    expect(users.constructor).toEqual([
      {id: expect.stringMatching(/^usr_/)},
      {id: expect.stringMatching(/^usr_/)},
    ])
    expect(users.toString).toEqual({id: expect.stringMatching(/^usr_/)})
  })

  it('prints the plan with --dry-run and sends nothing', async () => {
    const r = await cli('seed', join(ROOT, 'examples/fixtures/bulk.yaml'), '--dry-run')
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/1\s+users\s+100/)
    expect(r.stdout).toMatch(/3\s+transactions\s+99/)
    expect(r.stdout).toContain('299 records in 3 waves; nothing sent.')
    expect(await listedCount(cli, 'wallets')).toBe(0)
  })
})
