import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {payctl, ROOT, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {tempDir} from '../service/helpers.js'
import {ledgerProblems} from '../service/money-helpers.js'

const DAY = 86_400

// Every command runs in this process, from src/, against sandboxes served here: what is tested is
// what the partners, their profiles and their clocks do, which no process of payctl's own changes.
describe('sandbox partners and clocks, through the CLI', () => {
  let sandbox: LocalSandbox
  const cli = (args: string[], env: Record<string, string> = {}) =>
    payctl(args, {configDir: sandbox.configDir, env, timeoutMs: 60_000})

  beforeAll(async () => {
    sandbox = await startLocalSandbox({settleAfterSeconds: 86_400})
  })
  afterAll(() => sandbox.stop())

  test('the local profile manages partners; each gets a profile; nobody else manages them', async () => {
    const created = await cli(['sandbox', 'partners', 'create', 'alice', '--json'])
    expect(created.exitCode, created.stderr).toBe(0)
    const alice = created.json<Record<string, string>>()
    expect(Object.keys(alice).sort()).toEqual(
      ['apiKey', 'apiSecret', 'baseUrl', 'name', 'partnerId', 'profile', 'secretKey'].sort(),
    )
    expect(alice).toMatchObject({name: 'alice', profile: 'alice', baseUrl: sandbox.url})
    const file = join(sandbox.configDir, 'profiles.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    // Piped without --json, the id alone; the secrets are in the profile, never on the screen.
    const bob = await cli(['sandbox', 'partners', 'create', 'bob', '--profile', 'bob-dev'])
    expect(bob.exitCode, bob.stderr).toBe(0)
    expect(bob.stdout).toMatch(/^partner_[0-9a-f]+\n$/)
    expect(bob.stdout + bob.stderr).not.toMatch(/sk_test_|test_[0-9a-f]{16}/)
    // The new profiles work at once, each as its own partner.
    const user = await cli(
      ['users', 'create', '--email', 'a@example.test', '--first-name', 'A', '--last-name', 'B'],
      {
        PAYCTL_PROFILE: 'alice',
      },
    )
    expect(user.exitCode, user.stderr).toBe(0)
    const seen = await cli(['users', 'get', user.stdout.trim(), '--profile', 'bob-dev'])
    expect(seen.exitCode).toBe(1)
    expect(seen.stderr).toContain('NOT_FOUND')

    const list = await cli(['sandbox', 'partners', 'list', '--json'])
    expect(list.exitCode, list.stderr).toBe(0)
    const rows = list.json<{name: string; operator: boolean; profiles: string[]}[]>()
    expect(rows.map((r) => [r.name, r.operator, r.profiles])).toEqual([
      [sandbox.credentials.partnerId, true, ['local']],
      ['alice', false, ['alice']],
      ['bob', false, ['bob-dev']],
    ])
    expect(list.stdout).not.toContain(alice.secretKey)

    // A partner's credentials manage nothing, and learn nothing of the others.
    for (const args of [
      ['sandbox', 'partners', 'create', 'carol'],
      ['sandbox', 'partners', 'list'],
      ['sandbox', 'partners', 'delete', 'bob', '--yes'],
    ]) {
      const refused = await cli(args, {PAYCTL_PROFILE: 'alice'})
      expect(refused.exitCode, args.join(' ')).toBe(4)
      expect(refused.stderr).toContain('INSUFFICIENT_PERMISSIONS')
      expect(refused.stderr).toContain('act as its profile, local')
      expect(refused.stderr).not.toContain('bob')
    }
    expect(readFileSync(file, 'utf8')).not.toContain('"carol"')
  })

  test('refuses bad names, taken names, and deleting the current profile’s partner or the operator; nothing is lost', async () => {
    await cli(['sandbox', 'partners', 'create', 'keep'])
    const before = readFileSync(join(sandbox.configDir, 'profiles.json'), 'utf8')
    for (const name of ['a/b', '..', '../x', 'tab\tname', 'bell\u0007', 'x'.repeat(300), '-flag']) {
      const res = await cli(['sandbox', 'partners', 'create', '--', name])
      expect(res.exitCode, JSON.stringify(name)).toBe(2)
      expect(res.stderr).toContain('INVALID_ARGUMENT')
    }
    const takenProfile = await cli(['sandbox', 'partners', 'create', 'keep'])
    expect(takenProfile.exitCode).toBe(2)
    expect(takenProfile.stderr).toContain('PROFILE_EXISTS')
    const takenName = await cli(['sandbox', 'partners', 'create', 'keep', '--profile', 'keep-2'])
    expect(takenName.exitCode).toBe(1)
    expect(takenName.stderr).toContain('PARTNER_EXISTS')
    expect((await cli(['profiles', 'use', 'keep'])).exitCode).toBe(0)
    const inUse = await cli(['sandbox', 'partners', 'delete', 'keep', '--yes'])
    expect(inUse.exitCode).toBe(2)
    expect(inUse.stderr).toContain('PROFILE_IN_USE')
    expect(inUse.stderr).toContain('payctl profiles use local')
    const operator = await cli(['sandbox', 'partners', 'delete', sandbox.credentials.partnerId, '--yes'])
    expect(operator.exitCode).toBe(1)
    expect(operator.stderr).toContain('INVALID_STATE_TRANSITION')
    expect(readFileSync(join(sandbox.configDir, 'profiles.json'), 'utf8')).toBe(
      before.replace('"currentProfile": "local"', '"currentProfile": "keep"'),
    )
    // Its records survive every refusal; deleting it for real takes its profile with it.
    expect(
      (await cli(['users', 'create', '--email', 'k@example.test', '--first-name', 'K', '--last-name', 'K']))
        .exitCode,
    ).toBe(0)
    expect((await cli(['profiles', 'use', 'local'])).exitCode).toBe(0)
    const deleted = await cli(['sandbox', 'partners', 'delete', 'keep', '--yes', '--json'])
    expect(deleted.exitCode, deleted.stderr).toBe(0)
    expect(deleted.json()).toMatchObject({name: 'keep', deleted: true, profilesRemoved: ['keep']})
    expect((await cli(['profiles', 'show', 'keep'])).exitCode).not.toBe(0)
  })

  test("advance, --to, freeze and resume move the profile's partner's clock only; bad input is refused", async () => {
    await cli(['sandbox', 'partners', 'create', 'timed'])
    const as = {PAYCTL_PROFILE: 'timed'}
    const status = async (env: Record<string, string> = {}) =>
      (await cli(['sandbox', 'status', '--json'], env)).json<{
        clock: {offsetSeconds: number}
        partnerClock: {now: string; offsetSeconds: number; frozen: boolean}
      }>()
    const moved = await cli(['sandbox', 'advance', '3d', '--json'], as)
    expect(moved.exitCode, moved.stderr).toBe(0)
    expect((await status(as)).partnerClock.offsetSeconds).toBeGreaterThanOrEqual(3 * DAY - 5)
    expect(Math.abs((await status()).partnerClock.offsetSeconds)).toBeLessThan(5)

    const frozen = await cli(['sandbox', 'clock', 'freeze', '--json'], as)
    expect(frozen.exitCode, frozen.stderr).toBe(0)
    expect(frozen.json()).toMatchObject({frozen: true})
    const shown = await cli(['sandbox', 'status'], as)
    expect(shown.stdout).toMatch(/sandbox clock\s+\S+ \(frozen\)/)
    const target = new Date(Date.parse(frozen.json<{now: string}>().now) + 30 * DAY * 1000)
    const day = target.toISOString().slice(0, 10)
    const to = await cli(['sandbox', 'advance', '--to', day, '--json'], as)
    expect(to.exitCode, to.stderr).toBe(0)
    expect(to.json()).toMatchObject({now: `${day}T00:00:00.000Z`, frozen: true})
    const resumed = await cli(['sandbox', 'clock', 'resume'], as)
    expect(resumed.exitCode, resumed.stderr).toBe(0)

    const refusals: [string[], number, string][] = [
      [['sandbox', 'clock', 'resume'], 1, 'INVALID_STATE_TRANSITION'],
      [['sandbox', 'advance', '--to', '2020-01-01'], 1, 'only moves forward'],
      [['sandbox', 'advance', '--to', 'next week'], 2, '--to'],
      [['sandbox', 'advance', '--to', '2027-02-30T00:00:00'], 2, '--to'],
      [['sandbox', 'advance'], 2, 'MISSING_FLAG'],
      [['sandbox', 'advance', '1d', '--to', day], 2, '--to'],
    ]
    const before = (await status(as)).partnerClock
    for (const [args, exitCode, text] of refusals) {
      const res = await cli(args, as)
      expect(res.exitCode, args.join(' ')).toBe(exitCode)
      expect(res.stderr).toContain(text)
    }
    const after = (await status(as)).partnerClock
    expect(Math.abs(after.offsetSeconds - before.offsetSeconds)).toBeLessThan(5)
  })
})

describe('eight CI jobs at once on one sandbox, each in a partner of its own', () => {
  test('each seeds the example fixtures, moves money, advances its clock and finds its balances; none sees another', async () => {
    const files = tempDir()
    const config = tempConfigDir()
    const sandbox = await startLocalSandbox(
      {settleAfterSeconds: 86_400, data: files.file},
      {configDir: config.dir},
    )
    // Each job's commands run in this process (payctl), side by side like separate processes.
    const cli = (args: string[], env: Record<string, string> = {}) =>
      payctl(args, {configDir: config.dir, env, timeoutMs: 240_000})
    try {
      const job = async (n: number) => {
        const name = `job-${n}`
        const created = await cli(['sandbox', 'partners', 'create', name, '--json'])
        expect(created.exitCode, created.stderr).toBe(0)
        // What a CI job exports: the credentials, not a profile file.
        const {apiKey, apiSecret, partnerId, baseUrl} = created.json<{
          apiKey: string
          apiSecret: string
          partnerId: string
          baseUrl: string
        }>()
        const env: Record<string, string> = {
          PAYCTL_BASE_URL: baseUrl,
          PAYCTL_ENV: 'local',
          PAYCTL_API_KEY: apiKey,
          PAYCTL_API_SECRET: apiSecret,
          PAYCTL_PARTNER_ID: partnerId,
        }
        const seeded = await cli(['seed', join(ROOT, 'examples/fixtures/shop.yaml'), '--json'], env)
        expect(seeded.exitCode, seeded.stdout + seeded.stderr).toBe(0)
        const ids = seeded.json<{wallets: Record<string, {id: string}>}>()
        // Money moves between two wallets of its own, which nothing in the fixture touches.
        const wallet = async (email: string) => {
          const user = await cli(
            ['users', 'create', '--email', email, '--first-name', 'J', '--last-name', 'N'],
            env,
          )
          expect(user.exitCode, user.stderr).toBe(0)
          const made = await cli(
            ['wallets', 'create', '--user', user.stdout.trim(), '--currency', 'USD'],
            env,
          )
          expect(made.exitCode, made.stderr).toBe(0)
          return made.stdout.trim()
        }
        const alice = await wallet(`payer-${n}@example.test`)
        const bob = await wallet(`payee-${n}@example.test`)
        const balance = async (wallet: string) =>
          (await cli(['wallets', 'balance', wallet, '--json'], env)).json<{
            available: number
            pending: number
          }>()
        const [alice0, bob0] = [await balance(alice), await balance(bob)]
        // Each job moves amounts of its own, so that a leak would show.
        const ach = await cli(
          [
            'transactions',
            'create',
            '-m',
            'ach',
            '-a',
            `${n + 1}.00USD`,
            '--to',
            alice,
            '--payment-method',
            'pm_ach_success',
            '--json',
          ],
          env,
        )
        expect(ach.exitCode, ach.stderr).toBe(0)
        expect(ach.json()).toMatchObject({status: 'processing'})
        const advanced = await cli(['sandbox', 'advance', `${n + 1}d`, '--json'], env)
        expect(advanced.exitCode, advanced.stderr).toBe(0)
        const p2p = await cli(
          ['transactions', 'create', '-m', 'wallet', '-a', `0.5${n}USD`, '--from', alice, '--to', bob],
          env,
        )
        expect(p2p.exitCode, p2p.stderr).toBe(0)
        expect(
          (await cli(['transactions', 'get', ach.json<{id: string}>().id, '--json'], env)).json(),
        ).toMatchObject({
          status: 'completed',
        })
        const [alice1, bob1] = [await balance(alice), await balance(bob)]
        const record = async (id: string) =>
          (await cli(['transactions', 'get', id, '--json'], env)).json<{amount: number; netAmount: number}>()
        const deposit = await record(ach.json<{id: string}>().id)
        const transfer = await record(p2p.stdout.trim())
        expect(deposit.amount).toBe((n + 1) * 100)
        expect(transfer.amount).toBe(50 + n)
        expect([alice0.available, bob0.available]).toEqual([0, 0])
        expect(alice1.available).toBe(deposit.netAmount - transfer.amount)
        expect(bob1.available).toBe(transfer.netAmount)
        // It sees its own wallets and nobody else's.
        const listed = (await cli(['wallets', 'list', '--all', '--json'], env)).json<{
          wallets: {id: string}[]
        }>()
        const own = [...Object.values(ids.wallets).map((w) => w.id), alice, bob]
        expect(listed.wallets.map((w) => w.id).sort()).toEqual(own.sort())
        return {name, partnerId, env, days: n + 1}
      }
      const jobs = await Promise.all(Array.from({length: 8}, (_, n) => job(n)))
      // Every clock moved by its own job alone.
      for (const {env, days} of jobs) {
        const clock = (await cli(['sandbox', 'status', '--json'], env)).json<{
          partnerClock: {offsetSeconds: number}
        }>()
        expect(clock.partnerClock.offsetSeconds).toBeGreaterThanOrEqual(days * DAY - 60)
        expect(clock.partnerClock.offsetSeconds).toBeLessThan((days + 1) * DAY)
      }
      await sandbox.stop()
      // Each partner's ledger balances: every wallet's balance is the sum of its entries.
      expect(ledgerProblems(files.file)).toEqual([])
    } finally {
      await sandbox.stop()
      config.cleanup()
      files.cleanup()
    }
  }, 300_000)
})
