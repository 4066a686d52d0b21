import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {type CliResult, loginArgs, payctl, readProfileFile, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(e.parentPath, e.name)) : [join(e.parentPath, e.name)],
  )
}

const jwtsIn = (text: string) => [...text.matchAll(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g)].map((m) => m[0])

describe('secrets stay out of every output, log and file of a realistic session', () => {
  const temp = tempConfigDir()
  let sandbox: LocalSandbox | undefined
  afterAll(async () => {
    await sandbox?.stop()
    temp.cleanup()
  })

  it('greps stdout, stderr, --debug logs, the sandbox log, the seed journal and every other file for each secret in play', async () => {
    const dir = temp.dir
    // Served in this process, with its request log beside its data file; the commands are what is
    // grepped, one of them a process of its own (a secret on stdin).
    sandbox = await startLocalSandbox({data: join(dir, 'sandbox.db')}, {configDir: dir})
    const c = sandbox.credentials
    const url = sandbox.url

    /** Outputs to grep, and the ones that show a secret by design (kept apart, with the reason). */
    const checked: {what: string; text: string}[] = []
    const byDesign: {what: string; why: string; text: string}[] = []
    const secrets = new Set<string>([c.apiSecret, c.secretKey])
    const profileTokens = () => {
      const file = readProfileFile(dir)
      for (const p of Object.values(file.profiles) as {token?: {accessToken: string}}[])
        if (p.token) secrets.add(p.token.accessToken)
    }
    const run = async (
      args: string[],
      opts: {input?: string; env?: Record<string, string>; expectExit?: number; showsSecret?: string} = {},
    ): Promise<CliResult> => {
      const r = await payctl(args, {configDir: dir, ...opts})
      if (opts.expectExit !== undefined)
        expect(r.exitCode, `${args.join(' ')}\n${r.stderr}`).toBe(opts.expectExit)
      const what = `payctl ${args.join(' ')}`
      if (opts.showsSecret) byDesign.push({what, why: opts.showsSecret, text: r.stdout + r.stderr})
      else checked.push({what, text: `${r.stdout}\n${r.stderr}`})
      profileTokens()
      return r
    }

    // Log in three ways: with the partner credentials of the local profile, with them on the command
    // line, and with a secret key on stdin.
    await run(['auth', 'login', '--env', 'local', '--debug'], {expectExit: 0})
    await run(loginArgs(sandbox, '--profile', 'argv', '--debug'), {expectExit: 0})
    await run(
      [
        'auth',
        'login',
        '--profile',
        'keyed',
        '--env',
        'local',
        '--base-url',
        url,
        '--secret-key',
        '-',
        '--debug',
      ],
      {input: `${c.secretKey}\n`, expectExit: 0},
    )
    await run(['profiles', 'use', 'local'], {expectExit: 0})
    await run(['auth', 'status', '--debug'], {expectExit: 0})
    await run(['auth', 'refresh', '--json', '--debug'], {expectExit: 0})
    await run(['profiles', 'show', '--json'], {expectExit: 0})
    await run(['profiles', 'show', 'keyed'], {expectExit: 0})
    await run(['profiles', 'list', '--json'], {expectExit: 0})
    // A minted JWT is what `auth token` is for: its stdout is the secret.
    const minted = await run(
      ['auth', 'token', '--profile', 'keyed', '--scopes', 'balance:read', '--ttl', '15m', '--debug'],
      {
        showsSecret: 'auth token prints the token it mints (that is its purpose)',
        expectExit: 0,
      },
    )
    for (const jwt of jwtsIn(minted.stdout)) secrets.add(jwt)

    // Users, wallets, money.
    const user = (
      await run(
        [
          'users',
          'create',
          '--email',
          's@example.test',
          '--first-name',
          'S',
          '--last-name',
          'Ec',
          '--json',
          '--debug',
        ],
        {
          expectExit: 0,
        },
      )
    ).json<{id: string}>().id
    const wallet = (
      await run(
        [
          'wallets',
          'create',
          '--user',
          user,
          '--currency',
          'USD',
          '--initial-balance',
          '50.00USD',
          '--json',
          '--debug',
        ],
        {
          expectExit: 0,
        },
      )
    ).json<{id: string}>().id
    await run(
      [
        'transactions',
        'create',
        '--method',
        'card',
        '--amount',
        '20.00USD',
        '--to',
        wallet,
        '--payment-method',
        'pm_card_visa',
        '--debug',
      ],
      {
        expectExit: 0,
      },
    )
    await run(['wallets', 'list', '--all', '--json', '--debug', '--profile', 'keyed'], {expectExit: 0})
    await run(['transactions', 'list', '--wallet', wallet, '--debug'], {expectExit: 0})

    // Webhooks: the signing secret is shown once by design, by register, rotate-secret and listen
    // --print-secret; everywhere else it must stay hidden.
    const hook = await run(
      ['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks', '--events', '*', '--json', '--debug'],
      {
        showsSecret: 'webhooks register shows the signing secret once, so that the receiver can be given it',
        expectExit: 0,
      },
    )
    const {id: hookId, secret: hookSecret} = hook.json<{id: string; secret: string}>()
    expect(hookSecret).toMatch(/^whsec_/)
    secrets.add(hookSecret)
    const rotated = await run(['webhooks', 'rotate-secret', hookId, '--json'], {
      showsSecret: 'webhooks rotate-secret shows the new signing secret once',
      expectExit: 0,
    })
    secrets.add(rotated.json<{secret: string}>().secret)
    const listen = await run(['webhooks', 'listen', '--print-secret'], {
      showsSecret: 'webhooks listen --print-secret exists to print the session’s signing secret',
      expectExit: 0,
    })
    secrets.add(listen.stdout.trim())
    await run(['webhooks', 'get', hookId, '--json', '--debug'], {expectExit: 0})
    await run(['webhooks', 'list', '--debug'], {expectExit: 0})
    await run(['webhooks', 'trigger', 'wallet.created', '--debug'], {expectExit: 0})
    await run(['events', 'list', '--json', '--debug'], {expectExit: 0})
    // Rotated in human form too: the new secret goes to stderr once, by design.
    const rotatedHuman = await run(['webhooks', 'rotate-secret', hookId], {
      showsSecret: 'webhooks rotate-secret shows the new signing secret once',
      expectExit: 0,
    })
    for (const m of rotatedHuman.stderr.matchAll(/whsec_[\w+/=-]+/g)) secrets.add(m[0])

    // Seed, with a webhook among the records: its --json result gives the registration's secret
    // once, by design; its human output, --debug, the journal and the audit log never do.
    const fixture = join(dir, 'fixture.yaml')
    writeFileSync(
      fixture,
      `users:
  a: {email: a@example.test, first_name: A, last_name: B}
wallets:
  w: {user: "\${users.a.id}", currency: EUR, initial_balance: 10.00EUR}
webhooks:
  h: {url: "http://127.0.0.1:9/seeded", events: ["*"]}
`,
    )
    const seeded = await run(['seed', fixture, '--json'], {
      showsSecret: 'seed --json gives each webhook registration it makes its signing secret, once',
      expectExit: 0,
    })
    const seededSecret = seeded.json<{webhooks: {h: {secret: string}}}>().webhooks.h.secret
    expect(seededSecret).toMatch(/^whsec_/)
    secrets.add(seededSecret)
    await run(['seed', fixture, '--debug', '--fresh'], {expectExit: 0})
    await run(['seed', fixture, '--debug'], {expectExit: 0})

    // Errors: a wrong secret, a missing record, a refused overdraft, a revoked token.
    const wrong = 'sk_test_thisisnotthesecret0123456789'
    secrets.add(wrong)
    await run(loginArgs({url, credentials: {...c, apiSecret: wrong}}, '--profile', 'wrong', '--debug'), {
      expectExit: 4,
    })
    await run(['wallets', 'get', 'wal_missing', '--debug'], {expectExit: 1})
    await run([
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '999.00USD',
      '--from',
      wallet,
      '--to',
      wallet,
      '--debug',
      '--json',
    ])
    await run(['api', 'GET', '/wallets/wal_missing', '--debug'], {expectExit: 1})
    await run(['auth', 'logout', '--profile', 'argv', '--debug'], {expectExit: 0})
    await run(['wallets', 'list', '--profile', 'argv', '--debug'], {expectExit: 4})
    await run(['wallets', 'list', '--debug'], {env: {PAYCTL_SECRET_KEY: `${c.secretKey}x`}, expectExit: 4})
    // A proxy's password is a secret too (NO_PROXY keeps the sandbox reachable).
    const proxyPassword = 'proxypassw0rd-0123456789'
    secrets.add(proxyPassword)
    await run(['doctor', '--debug'], {
      env: {
        HTTPS_PROXY: `http://alice:${proxyPassword}@127.0.0.1:9`,
        HTTP_PROXY: `http://alice:${proxyPassword}@127.0.0.1:9`,
        NO_PROXY: '127.0.0.1',
      },
    })
    await run(['audit', 'list', '--json'])
    // The sandbox's request log, every line of the session, as the command shows it.
    await run(['sandbox', 'logs', '--json', '--limit', '100'], {expectExit: 0})
    await run(['sandbox', 'logs', '--status', '4xx,5xx', '--limit', '100'], {expectExit: 0})

    await sandbox.stop()
    checked.push({
      what: 'the sandbox’s request log (what sandbox start prints on stderr)',
      text: sandbox.log(),
    })
    sandbox = undefined

    // Every file payctl wrote under the config dir, but the profile file (it holds credentials, 0600)
    // and the sandbox's database (it stores its partner's credentials by design: docs/sandbox.md).
    const files = filesUnder(dir).filter(
      (f) =>
        !/(^|\/)profiles\.json$/.test(f) && !/sandbox\.db(-wal|-shm|-journal)?$/.test(f) && f !== fixture,
    )
    for (const f of files) checked.push({what: `file ${relative(dir, f)}`, text: readFileSync(f, 'utf8')})
    expect(
      files.some((f) => f.includes(`${join('seed', '')}`)),
      files.join('\n'),
    ).toBe(true)
    expect(files, 'the request log beside the data file').toContain(join(dir, 'sandbox.db-requests.log'))

    // Each secret, and the tell-tale part of each (a JWT's signature, a key without its prefix).
    const needles = new Map<string, string>()
    for (const s of secrets) {
      needles.set(s, s)
      if (s.startsWith('eyJ')) needles.set(s.split('.')[2]!, `signature of ${s.slice(0, 12)}…`)
      else needles.set(s.slice(s.indexOf('_', 3) + 1), `${s.slice(0, 8)}… without its prefix`)
    }
    expect(secrets.size).toBeGreaterThanOrEqual(8)
    const leaks: string[] = []
    for (const {what, text} of checked)
      for (const [needle, name] of needles)
        if (needle.length >= 12 && text.includes(needle)) leaks.push(`${name} in ${what}`)
    expect(leaks).toEqual([])
    // The session did exercise what it claims to.
    const all = checked.map((x) => x.text).join('\n')
    expect(all).toContain('--> POST')
    expect(all).toContain('[REDACTED]')
    expect(checked.length).toBeGreaterThan(30)
    // The grep would have caught a leak: each by-design output holds one of the needles.
    for (const {what, text} of byDesign)
      expect(
        [...needles.keys()].some((n) => text.includes(n)),
        what,
      ).toBe(true)
  }, 180_000)
})
