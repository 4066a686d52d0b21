import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliResult, cliFor, payctl, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {
  type ErrorShape,
  type ReferenceService,
  type ResponseShape,
  startReferenceService,
} from '../helpers/reference-service.js'

/**
 * payctl against a service written from the interface document alone (test/helpers/reference-service.ts),
 * which answers with only what the document shows. Every command that maps to an endpoint of the
 * document must work there, in both response shapes, as it does against the sandbox.
 */

async function loggedIn(service: ReferenceService, extra: string[] = []) {
  const temp = tempConfigDir()
  const run = cliFor(temp.dir)
  const c = service.credentials
  const login = await run(
    'auth',
    'login',
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
    ...extra,
  )
  expect(login.exitCode, login.stderr).toBe(0)
  return {run, cleanup: temp.cleanup}
}

describe.each<ResponseShape>(['envelope', 'direct'])('a spec-only service, %s shape', (shape) => {
  let service: ReferenceService
  let session: Awaited<ReturnType<typeof loggedIn>>
  let user: string
  beforeAll(async () => {
    service = await startReferenceService({shape})
    session = await loggedIn(service)
    const created = await session.run(
      'users',
      'create',
      '--email',
      'ada@example.test',
      '--first-name',
      'Ada',
      '--last-name',
      'L',
    )
    expect(created.exitCode, created.stderr).toBe(0)
    user = created.stdout.trim()
  })
  afterAll(async () => {
    session.cleanup()
    await service.close()
  })

  it('users create prints the id, and users get shows a record of only an id', async () => {
    expect(user).toMatch(/^usr_\w+$/)
    const json = await session.run('users', 'get', user, '--json')
    expect(json.exitCode, json.stderr).toBe(0)
    expect(json.json()).toEqual({id: user})
    const card = await session.run('users', 'get', user)
    expect(card.exitCode, card.stderr).toBe(0)
    expect(card.stdout).toMatch(new RegExp(`id\\s+${user}`))
    expect(card.stdout).toMatch(/email\s+—/)
  })

  it('creates, reads and lists wallets, and moves money by card and by ACH', async () => {
    const wallet = await session.run(
      'wallets',
      'create',
      '--user',
      user,
      '--currency',
      'USD',
      '--initial-balance',
      '1000',
    )
    expect(wallet.exitCode, wallet.stderr).toBe(0)
    const id = wallet.stdout.trim()
    expect((await session.run('wallets', 'get', id, '--json')).json()).toMatchObject({id, userId: user})
    const list = await session.run('wallets', 'list', '--user', user, '--json')
    expect(list.exitCode, list.stderr).toBe(0)
    expect(list.json<{wallets: {id: string}[]}>().wallets.map((w) => w.id)).toEqual([id])
    const card = await session.run(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '25.00USD',
      '--to',
      id,
      '--payment-method',
      'pm_x',
      '--json',
    )
    expect(card.exitCode, card.stderr).toBe(0)
    expect(card.json()).toMatchObject({status: 'completed', amount: 2500})
    const ach = await session.run(
      'transactions',
      'create',
      '--method',
      'ach',
      '--amount',
      '10000',
      '--currency',
      'USD',
      '--to',
      id,
      '--payment-method',
      'pm_y',
    )
    expect(ach.exitCode, ach.stderr).toBe(0)
    expect(ach.stdout.trim()).toMatch(/^txn_\w+$/)
  })

  it('webhooks register succeeds without a secret in the answer, and says so', async () => {
    const r = await session.run(
      'webhooks',
      'register',
      '--url',
      'https://example.test/hooks',
      '--events',
      'wallet.created',
    )
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout.trim()).toMatch(/^wh_\w+$/)
    expect(r.stderr).toMatch(/without a signing secret/)
  })

  it('accounts connect prints the link token of either spelling', async () => {
    const r = await session.run('accounts', 'connect', user)
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout.trim()).toMatch(/^link-sandbox-\w+$/)
  })

  it('runs every round-up command, whatever the service answers', async () => {
    const processed = await session.run(
      'roundups',
      'process',
      '--user',
      user,
      '--amount',
      '4.35',
      '--merchant',
      'Cafe',
      '--transaction-id',
      'p1',
      '--json',
    )
    expect(processed.exitCode, processed.stderr).toBe(0)
    expect(processed.json()).toEqual({roundup_amount: 1.3})
    const piped = await session.run(
      'roundups',
      'process',
      '--user',
      user,
      '--amount',
      '4.35',
      '--merchant',
      'Cafe',
      '--transaction-id',
      'p2',
    )
    expect(JSON.parse(piped.stdout)).toEqual({roundup_amount: 1.3})
    for (const args of [
      ['roundups', 'settings', 'set', user, '--multiplier', '2'],
      ['roundups', 'enable', user],
      ['roundups', 'settings', 'get', user],
      ['roundups', 'pending', user],
      ['roundups', 'transfer', user],
    ]) {
      const r = await session.run(...args)
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    }
    expect((await session.run('roundups', 'settings', 'get', user)).stdout).toMatch(/round-ups\s+on/)
  })

  it('runs every BNPL and wallet-product command on answers it knows nothing of, and on empty ones', async () => {
    const bnpl = await session.run(
      'bnpl',
      'payments',
      'create',
      '--user',
      user,
      '--amount',
      '240.00USD',
      '--merchant',
      'Shop',
    )
    expect(bnpl.exitCode, bnpl.stderr).toBe(0)
    expect(bnpl.stdout.trim()).toBe('bnpl_ref_1')
    const cancelled = await session.run('bnpl', 'payments', 'cancel', 'bnpl_ref_1', '--yes', '--json')
    expect(cancelled.exitCode, cancelled.stderr).toBe(0)
    expect(cancelled.json()).toEqual({})
    const unknownFields = await session.run('bnpl', 'prequalify', '--user', user)
    expect(unknownFields.stdout).toMatch(/qualified\s+true/)
    for (const args of [
      ['bnpl', 'payments', 'get', 'bnpl_ref_1'],
      ['bnpl', 'payments', 'list'],
      ['payments', 'eligibility', '--user', user, '--amount', '19.99USD'],
      ['payments', 'create', '--user', user, '--amount', '19.99USD'],
      ['users', 'balance', user],
      ['cards', 'create', user],
      ['p2p', 'send', '--from', user, '--to', user, '--amount', '10.00USD'],
    ]) {
      const r = await session.run(...args)
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(r.stdout, args.join(' ')).not.toBe('')
    }
  })

  it('users list, a sandbox extension, says in one line what this service lacks and why', async () => {
    const r = await session.run('users', 'list', '--email', 'ada@example.test')
    expect(r.exitCode).toBe(1)
    expect(r.stdout).toBe('')
    // Besides the banner that names an environment other than local and sandbox.
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('profile reference →'))
    expect(lines, r.stderr).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^NOT_OFFERED: this service does not offer GET \/v1\/users \(.*\): it answered 404/,
    )
    expect(lines[0]).toMatch(/sandbox extension/)
    const json = await session.run('users', 'list', '--json')
    expect(json.json<{error: {code: string}}>().error.code).toBe('NOT_OFFERED')
  })

  it('a user named by email, where the service finds no users, is said in one line: give the id', async () => {
    for (const args of [
      ['users', 'inspect', 'ada@example.test'],
      ['users', 'get', 'ada@example.test'],
    ]) {
      const r = await session.run(...args)
      expect(r.exitCode, args.join(' ')).toBe(1)
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('profile reference →'))
      expect(lines, r.stderr).toHaveLength(1)
      expect(lines[0]).toMatch(
        /^NOT_OFFERED: ada@example\.test is an email, and this service offers no way to find a user by email .*sandbox extension.*give the user's id/,
      )
    }
  })

  it('users inspect shows what can be had, says in one line what is missing and why, and exits 0', async () => {
    const own = (
      await session.run(
        'users',
        'create',
        '--email',
        'i@example.test',
        '--first-name',
        'I',
        '--last-name',
        'N',
      )
    ).stdout.trim()
    const wallet = (
      await session.run('wallets', 'create', '--user', own, '--currency', 'USD', '--initial-balance', '1234')
    ).stdout.trim()
    const r = await session.run('users', 'inspect', own)
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`id\\s+${own}`))
    expect(r.stdout).toMatch(new RegExp(`${wallet}\\s+active\\s+12\\.34 USD\\s+0\\.00 USD\\s+12\\.34 USD`))
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('profile reference →'))
    expect(lines, r.stderr).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^Not shown: transactions, events, ledger entries: the service answered 404; .*sandbox extensions/,
    )
    const json = await session.run('users', 'inspect', own, '--json')
    expect(json.exitCode, json.stderr).toBe(0)
    const story = json.json<{
      user: {id: string}
      wallets: {id: string}[]
      bnplPayments: unknown[]
      missing: {what: string}[]
      timeline: unknown[]
    }>()
    expect(story.user).toEqual({id: own})
    expect(story.wallets.map((w) => w.id)).toEqual([wallet])
    expect(story.bnplPayments).toEqual([])
    expect(story.missing.map((m) => m.what.split(' ')[0])).toEqual(['transactions', 'events', 'ledger'])
    expect(story.timeline).toEqual([])
    const one = await session.run('wallets', 'inspect', wallet, '--output', 'ndjson')
    expect(one.exitCode, one.stderr).toBe(0)
    expect(one.stdout).toBe('')
    expect(one.stderr).toMatch(/Not shown: transactions, events, ledger entries/)
  })

  it('logs in with a secret API key, and refuses one the service does not know with exit 4', async () => {
    const temp = tempConfigDir()
    try {
      const login = (key: string) =>
        cliFor(temp.dir)(
          'auth',
          'login',
          '--env',
          'reference',
          '--base-url',
          service.url,
          '--secret-key',
          key,
        )
      const ok = await login(service.credentials.secretKey)
      expect(ok.exitCode, ok.stderr).toBe(0)
      expect(service.requests.at(-1)).toMatchObject({
        method: 'GET',
        path: expect.stringMatching(/^\/v1\/wallets\//),
      })
      const refused = await login('test_not_a_key_of_this_service')
      expect(refused.exitCode).toBe(4)
      expect(refused.stderr).toMatch(/invalid_api_key/)
    } finally {
      temp.cleanup()
    }
  })

  it('auth refresh takes the expiry from the new token, and auth logout accepts a 204', async () => {
    const refreshed = await session.run('auth', 'refresh', '--json')
    expect(refreshed.exitCode, refreshed.stderr).toBe(0)
    const left = Date.parse(refreshed.json<{expiresAt: string}>().expiresAt) - Date.now()
    expect(left / 86400_000).toBeCloseTo(3, 1)
    const logout = await session.run('auth', 'logout')
    expect(logout.exitCode, logout.stderr).toBe(0)
    expect(logout.stdout).toMatch(/access token revoked/)
  })
})

describe('a service with a separate auth host', () => {
  let main: ReferenceService
  let auth: ReferenceService
  beforeAll(async () => {
    ;[main, auth] = await Promise.all([startReferenceService(), startReferenceService()])
  })
  afterAll(async () => {
    await Promise.all([main.close(), auth.close()])
  })

  it('sends the token calls and the earlier variant round-up calls there, the rest to the main host', async () => {
    const session = await loggedIn(main, ['--auth-url', auth.url])
    try {
      const user = (
        await session.run(
          'users',
          'create',
          '--email',
          'a@example.test',
          '--first-name',
          'A',
          '--last-name',
          'B',
        )
      ).stdout.trim()
      const processed = await session.run(
        'roundups',
        'process',
        '--user',
        user,
        '--amount',
        '1.70',
        '--merchant',
        'M',
        '--transaction-id',
        't',
      )
      expect(processed.exitCode, processed.stderr).toBe(0)
      const settings = await session.run('roundups', 'settings', 'get', user)
      expect(settings.exitCode, settings.stderr).toBe(0)
      expect(auth.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /v1/auth/token',
        'POST /v1/transactions/process',
      ])
      expect(main.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /v1/users',
        `GET /v1/roundupsvc/users/${user}/roundups/settings`,
      ])
    } finally {
      session.cleanup()
    }
  })
})

/** One mistake, made against a service: the error code and exit code payctl reports. */
type Outcome = {code: string; exitCode: number}
type Mistake = (
  svc: {url: string; credentials: ReferenceService['credentials']},
  configDir: string,
) => Promise<Outcome>

const outcome = (r: CliResult): Outcome => ({
  code: r.json<{error: {code: string}}>().error.code,
  exitCode: r.exitCode,
})
const envFor = (svc: {url: string; credentials: ReferenceService['credentials']}) => ({
  PAYCTL_BASE_URL: svc.url,
  PAYCTL_API_KEY: svc.credentials.apiKey,
  PAYCTL_API_SECRET: svc.credentials.apiSecret,
  PAYCTL_PARTNER_ID: svc.credentials.partnerId,
})

const MISTAKES: Record<string, Mistake> = {
  'a wallet for a user that does not exist': async (svc, configDir) =>
    outcome(
      await payctl(['wallets', 'create', '--user', 'usr_nobody', '--currency', 'USD', '--json'], {
        configDir,
        env: envFor(svc),
      }),
    ),
  'a wallet transfer beyond the balance': async (svc, configDir) => {
    const env = envFor(svc)
    const user = (
      await payctl(
        ['users', 'create', '--email', 'x@example.test', '--first-name', 'X', '--last-name', 'Y'],
        {configDir, env},
      )
    ).stdout.trim()
    const from = (
      await payctl(['wallets', 'create', '--user', user, '--currency', 'USD'], {configDir, env})
    ).stdout.trim()
    const other = (
      await payctl(
        ['users', 'create', '--email', 'z@example.test', '--first-name', 'Z', '--last-name', 'Y'],
        {configDir, env},
      )
    ).stdout.trim()
    const to = (
      await payctl(['wallets', 'create', '--user', other, '--currency', 'USD'], {configDir, env})
    ).stdout.trim()
    return outcome(
      await payctl(
        [
          'transactions',
          'create',
          '--method',
          'wallet',
          '--amount',
          '100.00USD',
          '--from',
          from,
          '--to',
          to,
          '--json',
        ],
        {configDir, env},
      ),
    )
  },
  'a wrong API secret': async (svc, configDir) =>
    outcome(
      await payctl(['users', 'get', 'usr_x', '--json'], {
        configDir,
        env: {...envFor(svc), PAYCTL_API_SECRET: 'sk_test_wrong_secret'},
      }),
    ),
  'an API key the service does not know': async (svc, configDir) =>
    outcome(
      await payctl(['users', 'get', 'usr_x', '--json'], {
        configDir,
        env: {PAYCTL_BASE_URL: svc.url, PAYCTL_SECRET_KEY: 'test_not_a_key_of_this_service'},
      }),
    ),
}

describe('errors of a spec-only service in each of the four shapes', () => {
  let sandbox: LocalSandbox
  const expected: Record<string, Outcome> = {}
  beforeAll(async () => {
    sandbox = await startLocalSandbox()
    for (const [name, mistake] of Object.entries(MISTAKES)) {
      const temp = tempConfigDir()
      const c = sandbox.credentials
      expected[name] = await mistake(
        {url: sandbox.url, credentials: {...c, secretKey: c.secretKey}},
        temp.dir,
      )
      temp.cleanup()
    }
  })
  afterAll(() => sandbox.stop())

  it.each<ErrorShape>(['overview', 'auth-a', 'auth-b', 'resource'])(
    'map to the same codes and exit codes as the sandbox: %s shape',
    async (errorShape) => {
      const service = await startReferenceService({errorShape})
      const temp = tempConfigDir()
      try {
        for (const [name, mistake] of Object.entries(MISTAKES)) {
          expect(await mistake(service, temp.dir), name).toEqual(expected[name])
        }
      } finally {
        temp.cleanup()
        await service.close()
      }
    },
  )

  it('are the codes a user would expect from the sandbox too', () => {
    expect(expected).toEqual({
      'a wallet for a user that does not exist': {code: 'INVALID_USER_ID', exitCode: 1},
      'a wallet transfer beyond the balance': {code: 'INSUFFICIENT_FUNDS', exitCode: 1},
      'a wrong API secret': {code: 'INVALID_CREDENTIALS', exitCode: 4},
      'an API key the service does not know': {code: 'invalid_api_key', exitCode: 4},
    })
  })
})
