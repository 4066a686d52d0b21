import {mkdirSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {ProfileStore} from '../../src/core/index.js'
import {SandboxClient} from '../../src/core/sandbox-client.js'
import {type Cli, cliFor, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type ReferenceService, startReferenceService} from '../helpers/reference-service.js'
import {comparable, importedStory, SECRETS, storyOf} from '../helpers/story-import.js'
import {type SupportStory, supportStory} from '../helpers/support-story.js'

/**
 * `payctl sandbox import` from a second sandbox (the rich case): the support story's customer,
 * with a metadata value to hide, brought into a sandbox of its own.
 */
describe('sandbox import from a sandbox', () => {
  let source: SupportStory
  let target: LocalSandbox
  let dataDir: string

  beforeAll(async () => {
    source = await supportStory()
    await importedStory.enrich(source.cli, source.usd, source.ada)
    dataDir = join(source.sandbox.configDir, 'target-data')
    mkdirSync(dataDir)
    target = await startLocalSandbox(
      {data: join(dataDir, 'target.db')},
      {configDir: source.sandbox.configDir, profile: 'target'},
    )
  }, 120_000)
  afterAll(async () => {
    await target?.stop()
    await source?.stop()
  })

  test('the target tells the same story, and the source saw only reads', async () => {
    const log = new SandboxClient({url: source.sandbox.url, credentials: source.sandbox.credentials})
    const before = await log.api.call('listRequestLog', {query: {limit: 1}})
    const run = await source.cli(
      'sandbox',
      'import',
      '--from',
      'local',
      '--into',
      'target',
      '--user',
      'ada@example.test',
      '--map',
      join(source.sandbox.configDir, 'map.json'),
      '--json',
    )
    expect(run.exitCode, run.stderr).toBe(0)
    const result = run.json<{ids: Record<string, string>; missing: unknown[]}>()
    expect(result.missing).toEqual([])
    // The audit line names the user by the id the email resolved to, not by the email.
    const audit = readFileSync(join(source.sandbox.configDir, 'audit.log'), 'utf8').trim().split('\n')
    const line = JSON.parse(audit.at(-1)!)
    expect(line.command).toContain(`--user ${source.ada} `)
    expect(line.note).toBe(`sandbox import of user ${source.ada} from local (profile local)`)
    const after = await log.api.call('listRequestLog', {query: {cursor: before.cursor, limit: 100}})
    const sent = after.entries.map((e) => `${e.method} ${e.path.split('?')[0]}`)
    expect(sent.length).toBeGreaterThan(5)
    for (const line of sent) expect(line).toMatch(/^(GET |POST \/v1\/auth\/token$)/)

    const newAda = result.ids['users.customer']!
    const map = JSON.parse(readFileSync(join(source.sandbox.configDir, 'map.json'), 'utf8'))
    // It links the sandbox to real customers: readable by its owner only.
    expect(statSync(join(source.sandbox.configDir, 'map.json')).mode & 0o777).toBe(0o600)
    expect(map[source.ada]).toBe(newAda)
    const there = await storyOf(source.cli, ['--profile', 'local'], source.ada)
    const here = await storyOf(source.cli, ['--profile', 'target'], newAda)
    expect(comparable(here)).toEqual(comparable(there))
    // The failed-then-retried delivery is there, and the round-ups as read: settings and pending.
    expect(JSON.stringify(comparable(here))).toContain('delivered on try 2')
    for (const args of [
      ['roundups', 'settings', 'get'],
      ['roundups', 'pending'],
    ]) {
      const a = await source.cli(...args, source.ada, '--profile', 'local', '--json')
      const b = await source.cli(...args, newAda, '--profile', 'target', '--json')
      const {
        user_id: _a,
        destination_account_id: _da,
        created_at: _ca,
        updated_at: _ua,
        roundups: ra,
        ...restA
      } = a.json()
      const {
        user_id: _b,
        destination_account_id: _db,
        created_at: _cb,
        updated_at: _ub,
        roundups: rb,
        ...restB
      } = b.json()
      expect(restB, args.join(' ')).toEqual(restA)
      const amounts = (list: unknown) =>
        ((list as Record<string, unknown>[] | undefined) ?? []).map((r) => [
          r.amount,
          r.roundup_amount,
          r.status,
          r.processed_at,
        ])
      expect(amounts(rb)).toEqual(amounts(ra))
    }
    expect(here.user.email).toMatch(/^user-[0-9a-f]{10}@example\.test$/)

    // Written as a fixture instead, and loaded by payctl seed: the same story again.
    const file = join(source.sandbox.configDir, 'story.yaml')
    const written = await source.cli(
      'sandbox',
      'import',
      '--from',
      'local',
      '--user',
      source.ada,
      '--file',
      file,
    )
    expect(written.exitCode, written.stderr).toBe(0)
    const seeded = await source.cli('seed', file, '--profile', 'target', '--json')
    expect(seeded.exitCode, seeded.stderr).toBe(0)
    const again = await storyOf(
      source.cli,
      ['--profile', 'target'],
      seeded.json<{ids: Record<string, string>}>().ids['users.customer']!,
    )
    expect(comparable(again)).toEqual(comparable(there))
    const kept = join(source.sandbox.configDir, 'kept.yaml')
    const keeping = await source.cli(
      'sandbox',
      'import',
      '--from',
      'local',
      '--user',
      source.ada,
      '--file',
      kept,
      '--keep-metadata',
      'order',
    )
    expect(keeping.exitCode, keeping.stderr).toBe(0)
    expect(readFileSync(kept, 'utf8')).toContain('order: ORD-SECRET-7741')
    const text = readFileSync(file, 'utf8')
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret)
    // Nor an id of the source: the map names them all.
    expect(Object.keys(map).length).toBeGreaterThan(20)
    for (const sourceId of Object.keys(map)) expect(text).not.toContain(sourceId)

    // Nothing the customer is appears in the target's files, nor in what the command printed.
    const bytes = readdirSync(dataDir).map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
    for (const secret of SECRETS) {
      for (const file of bytes) expect(file.includes(secret), secret).toBe(false)
      expect(run.stdout + run.stderr, secret).not.toContain(secret)
    }
    for (const sourceId of Object.keys(map))
      for (const file of bytes) expect(file.includes(sourceId), sourceId).toBe(false)
  })
})

/**
 * From a service that offers only what the interface shows (the lean case): the user, their
 * wallets and balances are there to import, and what is missing is named in one line each.
 */
describe('sandbox import from a service without the extensions', () => {
  let service: ReferenceService
  let temp: {dir: string; cleanup: () => void}
  let target: LocalSandbox
  let cli: Cli

  beforeAll(async () => {
    service = await startReferenceService()
    temp = tempConfigDir()
    cli = cliFor(temp.dir)
    const c = service.credentials
    const login = await cli(
      'auth',
      'login',
      '--profile',
      'reference',
      '--env',
      'reference',
      '--base-url',
      service.url,
      '--api-key',
      c.apiKey,
      '--partner-id',
      c.partnerId,
      '--api-secret',
      c.apiSecret,
    )
    expect(login.exitCode, login.stderr).toBe(0)
    target = await startLocalSandbox({}, {configDir: temp.dir, profile: 'target'})
  }, 120_000)
  afterAll(async () => {
    await target?.stop()
    await service?.close()
    temp?.cleanup()
  })

  test('imports what the service shows, names what it does not, and only reads', async () => {
    const id = async (...args: string[]) => {
      const r = await cli(...args, '--profile', 'reference')
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      return r.stdout.trim()
    }
    const ada = await id(
      'users',
      'create',
      '--email',
      'ada@example.test',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
    )
    const usd = await id(
      'wallets',
      'create',
      '--user',
      ada,
      '--currency',
      'USD',
      '--initial-balance',
      '150.00USD',
    )
    await id('wallets', 'create', '--user', ada, '--currency', 'EUR', '--initial-balance', '20.00EUR')
    await id(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '20.00USD',
      '--to',
      usd,
      '--payment-method',
      'pm_card_visa',
    )
    const before = service.requests.length
    const run = await cli(
      'sandbox',
      'import',
      '--from',
      'reference',
      '--into',
      'target',
      '--user',
      ada,
      '--json',
    )
    expect(run.exitCode, run.stderr).toBe(0)
    const sent = service.requests.slice(before).map((r) => `${r.method} ${r.path.split('?')[0]}`)
    expect(sent.length).toBeGreaterThan(3)
    for (const line of sent) expect(line).toMatch(/^(GET |POST \/v1\/auth\/token$)/)
    const result = run.json<{ids: Record<string, string>; missing: {what: string}[]}>()
    expect(result.missing.map((m) => m.what)).toEqual(
      expect.arrayContaining(['transactions', 'events', 'ledger entries', 'round-up settings']),
    )
    // Told in one line each, on stderr (silent under --json).
    const file = join(temp.dir, 'lean.yaml')
    const written = await cli('sandbox', 'import', '--from', 'reference', '--user', ada, '--file', file)
    expect(written.exitCode, written.stderr).toBe(0)
    expect(written.stderr).toMatch(/^Not imported: transactions: the service answered 404/m)
    expect(written.stderr).toMatch(/^Not imported: ledger entries: /m)

    const there = await storyOf(cli, ['--profile', 'reference'], ada)
    const here = await storyOf(cli, ['--profile', 'target'], result.ids['users.customer']!)
    expect(comparable(here).wallets).toEqual(comparable(there).wallets)
    // Without a ledger at the source, each balance is one opening line, adding up to it.
    expect(here.timeline.map((l) => [l.what, l.amount, (l.balanceAfter as {total: number}).total])).toEqual(
      expect.arrayContaining([
        ['initial balance', 15000, 15000],
        ['initial balance', 2000, 2000],
      ]),
    )
    expect(here.timeline).toHaveLength(2)
  })
})

describe('sandbox import is guarded', () => {
  let service: ReferenceService
  let temp: {dir: string; cleanup: () => void}
  let target: LocalSandbox
  let cli: Cli
  const ada = 'usr_0123456789abcdef01234567'

  beforeAll(async () => {
    service = await startReferenceService()
    temp = tempConfigDir()
    cli = cliFor(temp.dir)
    target = await startLocalSandbox({}, {configDir: temp.dir, profile: 'target'})
    // A production profile as `auth login` leaves it (which would check the key with the service).
    await new ProfileStore(temp.dir).update((file) => {
      file.profiles.prod = {
        environment: 'production',
        baseUrl: service.url,
        auth: {variant: 'B', secretKey: 'live_abcdefghijklmnop'},
      }
    })
  }, 120_000)
  afterAll(async () => {
    await target?.stop()
    await service?.close()
    temp?.cleanup()
  })

  test('names the flags nobody can be asked for', async () => {
    const r = await cli('sandbox', 'import', '--into', 'target')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--from, --user')
    const one = await cli('sandbox', 'import', '--into', 'target', '--from', 'prod')
    expect(one.exitCode).toBe(2)
    expect(one.stderr).toContain('--user')
  })

  test('a production source needs --yes in a script, and every import is audited without its data', async () => {
    const refused = await cli('sandbox', 'import', '--from', 'prod', '--into', 'target', '--user', ada)
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/CONFIRMATION_REQUIRED.*production without confirmation/)
    expect(service.requests).toEqual([])
    // With --yes it reads (this service refuses the key: what matters is that it was asked).
    await cli('sandbox', 'import', '--from', 'prod', '--into', 'target', '--user', ada, '--yes')
    expect(service.requests.length).toBeGreaterThan(0)
    const audit = readFileSync(join(temp.dir, 'audit.log'), 'utf8').trim().split('\n')
    const line = JSON.parse(audit.at(-1)!)
    expect(line.note).toBe(`sandbox import of user ${ada} from production (profile prod)`)
    expect(line.environment).toBe('local')
  })

  test('the audit line names the user by id or a redacted email, never the email typed', async () => {
    for (const user of ['--user=Grace@Example.test', '--user Grace@Example.test']) {
      await cli('sandbox', 'import', '--from', 'prod', '--into', 'target', ...user.split(' '), '--yes')
      const line = JSON.parse(readFileSync(join(temp.dir, 'audit.log'), 'utf8').trim().split('\n').at(-1)!)
      expect(JSON.stringify(line).toLowerCase(), user).not.toContain('grace@example.test')
      expect(line.command).toMatch(/ --user[= ]user-[0-9a-f]{10}@example\.test /)
      expect(line.note).toMatch(
        /^sandbox import of user user-[0-9a-f]{10}@example\.test \(an email, redacted\) from production/,
      )
    }
  })

  test('loads only into a local sandbox', async () => {
    const r = await cli('sandbox', 'import', '--from', 'prod', '--into', 'prod', '--user', ada, '--yes')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/only works against the local sandbox/)
  })
})
