import {chmodSync, existsSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, loginArgs, payctl, readProfileFile, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

let sandbox: LocalSandbox
beforeAll(async () => {
  sandbox = await startLocalSandbox()
})
afterAll(async () => {
  await sandbox.stop()
})

describe('profiles', () => {
  it('lists, shows with sources, switches and removes profiles', async () => {
    const temp = tempConfigDir()
    const cli = cliFor(temp.dir)
    try {
      const c = sandbox.credentials
      for (const name of ['one', 'two']) {
        const r = await cli(
          'auth',
          'login',
          '--profile',
          name,
          '--env',
          'local',
          '--base-url',
          sandbox.url,
          '--secret-key',
          c.secretKey,
        )
        expect(r.exitCode, r.stderr).toBe(0)
      }
      const list = await cli('profiles', 'list', '--json')
      expect(list.json<{name: string; current: boolean}[]>().map((p) => [p.name, p.current])).toEqual([
        ['one', false],
        ['two', true],
      ])
      // Every list takes --output and --columns; `--output json` is what --json prints.
      expect((await cli('profiles', 'list', '--output', 'json')).json()).toEqual(list.json())
      const csv = await cli('profiles', 'list', '--output', 'csv', '--columns', 'name,environment')
      expect(csv.stdout).toBe('name,environment\none,local\ntwo,local\n')
      const ndjson = await cli('profiles', 'list', '-o', 'ndjson')
      expect(
        ndjson.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).name),
      ).toEqual(['one', 'two'])
      const bad = await cli('profiles', 'list', '--columns', 'nope')
      expect(bad.exitCode).toBe(2)
      expect(bad.stderr).toContain('unknown column "nope"')
      expect((await cli('profiles', 'use', 'one')).exitCode).toBe(0)
      const shown = await cli('profiles', 'show', '--json')
      expect(shown.json()).toMatchObject({
        name: 'one',
        baseUrl: sandbox.url,
        secret: 'set',
        sources: {profile: 'file', baseUrl: 'file', credentials: 'file'},
      })
      expect(shown.stdout).not.toContain(c.secretKey)

      const overridden = await cliFor(temp.dir, {
        env: {PAYCTL_BASE_URL: 'http://127.0.0.1:1', PAYCTL_PROFILE: 'two'},
      })('profiles', 'show', '--json')
      expect(overridden.json()).toMatchObject({
        name: 'two',
        baseUrl: 'http://127.0.0.1:1',
        sources: {profile: 'env', baseUrl: 'env'},
      })
      const human = await cliFor(temp.dir, {env: {PAYCTL_BASE_URL: 'http://127.0.0.1:1'}})('profiles', 'show')
      expect(human.stdout).toMatch(/base url\s+http:\/\/127\.0\.0\.1:1 \(env\)/)

      expect((await cli('profiles', 'remove', 'one')).exitCode).toBe(0)
      const after = await cli('profiles', 'list', '--json')
      expect(after.json<{name: string}[]>().map((p) => p.name)).toEqual(['two'])
      const missing = await cli('profiles', 'use', 'nope')
      expect(missing.exitCode).toBe(2)
      expect(missing.stderr).toContain('PROFILE_NOT_FOUND')
    } finally {
      temp.cleanup()
    }
  })

  it('keeps a profile named __proto__ or constructor like any other, and finds none it does not hold', async () => {
    const temp = tempConfigDir()
    const cli = cliFor(temp.dir)
    const login = (name: string) =>
      cli(
        'auth',
        'login',
        '--profile',
        name,
        '--env',
        'local',
        '--base-url',
        sandbox.url,
        '--secret-key',
        sandbox.credentials.secretKey,
      )
    const names = async () =>
      (await cli('profiles', 'list', '--json')).json<{name: string}[]>().map((p) => p.name)
    try {
      // Asked for before it exists: an error, never a tick.
      for (const [args, exitCode] of [
        [['profiles', 'use', 'constructor'], 2],
        [['profiles', 'remove', '__proto__'], 2],
        [['profiles', 'show', 'toString'], 1],
      ] as const) {
        const r = await cli(...args)
        expect(r.exitCode, args.join(' ')).toBe(exitCode)
        expect(r.stderr, args.join(' ')).toContain('PROFILE_NOT_FOUND')
        expect(r.stdout, args.join(' ')).not.toContain('✓')
      }
      const fromEnv = await cliFor(temp.dir, {env: {PAYCTL_PROFILE: 'constructor'}})('wallets', 'list')
      expect(fromEnv.exitCode).toBe(1)
      expect(fromEnv.stderr).toContain('no profile named "constructor" (from PAYCTL_PROFILE)')

      for (const name of ['__proto__', 'constructor']) {
        const r = await login(name)
        expect(r.exitCode, r.stderr).toBe(0)
        expect(r.stdout).toContain(`profile "${name}"`)
      }
      expect(await names()).toEqual(['__proto__', 'constructor'])
      for (const name of ['__proto__', 'constructor']) {
        expect((await cli('profiles', 'use', name)).exitCode).toBe(0)
        const wallets = await cli('wallets', 'list', '--json')
        expect(wallets.exitCode, wallets.stderr).toBe(0)
        expect((await cli('profiles', 'show', '--json')).json()).toMatchObject({name, secret: 'set'})
      }
      const out = await cli('auth', 'logout', '--profile', '__proto__')
      expect(out.exitCode, out.stderr).toBe(0)
      expect((await cli('profiles', 'show', '__proto__', '--json')).json()).toMatchObject({
        name: '__proto__',
        secret: 'not set',
      })
      expect((await cli('profiles', 'remove', '__proto__')).exitCode).toBe(0)
      expect(await names()).toEqual(['constructor'])
    } finally {
      temp.cleanup()
    }
  })

  it('refuses an empty profile name instead of saving a profile no command can name', async () => {
    const temp = tempConfigDir()
    try {
      const r = await payctl(
        [
          'auth',
          'login',
          '--profile',
          '',
          '--env',
          'local',
          '--base-url',
          sandbox.url,
          '--secret-key',
          sandbox.credentials.secretKey,
        ],
        {configDir: temp.dir},
      )
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toContain('INVALID_PROFILE_NAME')
      expect(r.stdout).not.toContain('✓')
      const list = await payctl(['profiles', 'list', '--json'], {configDir: temp.dir})
      expect(list.json()).toEqual([])
    } finally {
      temp.cleanup()
    }
  })

  it('works in CI with env vars only and no profile file', async () => {
    const temp = tempConfigDir()
    try {
      const c = sandbox.credentials
      const env = {
        CI: 'true',
        PAYCTL_BASE_URL: sandbox.url,
        PAYCTL_API_KEY: c.apiKey,
        PAYCTL_API_SECRET: c.apiSecret,
        PAYCTL_PARTNER_ID: c.partnerId,
      }
      const r = await payctl(
        ['users', 'create', '--email', 'ci@example.test', '--first-name', 'C', '--last-name', 'I', '--json'],
        {configDir: temp.dir, env},
      )
      expect(r.exitCode, r.stderr).toBe(0)
      const b = await payctl(['auth', 'status', '--json'], {
        configDir: temp.dir,
        env: {CI: 'true', PAYCTL_BASE_URL: sandbox.url, PAYCTL_SECRET_KEY: c.secretKey},
      })
      expect(b.exitCode, b.stderr).toBe(0)
      expect(b.json()).toMatchObject({variant: 'B', credentialsFrom: 'env'})
    } finally {
      temp.cleanup()
    }
  })

  it('refuses a partial set of credential variables instead of mixing them with the file', async () => {
    const r = await payctl(['wallets', 'list'], {
      configDir: sandbox.configDir,
      env: {PAYCTL_PARTNER_ID: 'partner_x'},
    })
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('ENV_CREDENTIALS_INCOMPLETE')
    expect(r.stderr).toContain('PAYCTL_API_KEY and PAYCTL_API_SECRET')
  })

  it('answers an unknown command with the usage exit code and "did you mean"', async () => {
    const r = await payctl(['walets', 'list'], {configDir: sandbox.configDir})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('walets list is not a payctl command')
    // Nobody can answer the question piped, so the suggestion is printed instead.
    expect(r.stderr).toContain('Did you mean payctl wallets list?')
  })

  it('refuses a profile file that other users can read', async () => {
    const temp = tempConfigDir()
    try {
      const r = await payctl(
        [
          'auth',
          'login',
          '--env',
          'local',
          '--base-url',
          sandbox.url,
          '--secret-key',
          sandbox.credentials.secretKey,
        ],
        {configDir: temp.dir},
      )
      expect(r.exitCode).toBe(0)
      chmodSync(join(temp.dir, 'profiles.json'), 0o644)
      const after = await payctl(['wallets', 'list'], {configDir: temp.dir})
      expect(after.exitCode).toBe(1)
      expect(after.stderr).toContain('PROFILE_FILE_PERMISSIONS')
      expect(after.stderr).toContain('chmod 600')
    } finally {
      temp.cleanup()
    }
  })
})

describe('safety between environments', () => {
  it('never sends a test_ key to production, and says so before any request', async () => {
    const temp = tempConfigDir()
    try {
      const r = await payctl(['wallets', 'list', '--debug'], {
        configDir: temp.dir,
        env: {
          PAYCTL_ENV: 'production',
          PAYCTL_BASE_URL: sandbox.url,
          PAYCTL_SECRET_KEY: sandbox.credentials.secretKey,
        },
      })
      expect(r.exitCode).toBe(4)
      expect(r.stderr).toContain('TEST_CREDENTIAL_IN_PRODUCTION')
      expect(r.stderr).toContain('PRODUCTION')
      expect(r.stderr).not.toContain('-->')
    } finally {
      temp.cleanup()
    }
  })

  it('never sends a live_ key to a local or sandbox URL', async () => {
    const temp = tempConfigDir()
    try {
      const r = await payctl(['wallets', 'list'], {
        configDir: temp.dir,
        env: {PAYCTL_BASE_URL: sandbox.url, PAYCTL_SECRET_KEY: 'live_abcdefghijklmnop'},
      })
      expect(r.exitCode).toBe(4)
      expect(r.stderr).toContain('LIVE_KEY_OUTSIDE_PRODUCTION')
      expect(r.stderr).not.toContain('live_abcdefghijklmnop')
    } finally {
      temp.cleanup()
    }
  })

  it('never sends live partner credentials to a local URL, even in a token exchange', async () => {
    const temp = tempConfigDir()
    try {
      const env = {
        PAYCTL_BASE_URL: sandbox.url,
        PAYCTL_API_KEY: 'pk_live_abcdefgh',
        PAYCTL_API_SECRET: 'sk_live_abcdefghijkl',
        PAYCTL_PARTNER_ID: 'p',
      }
      const r = await payctl(['wallets', 'list', '--json'], {configDir: temp.dir, env})
      expect(r.exitCode).toBe(4)
      expect(r.json<{error: {code: string}}>().error.code).toBe('LIVE_KEY_OUTSIDE_PRODUCTION')
      expect(r.stdout).not.toContain('sk_live_abcdefghijkl')
    } finally {
      temp.cleanup()
    }
  })

  it('refuses a production mutation without --yes when nobody can confirm', async () => {
    const temp = tempConfigDir()
    try {
      const r = await payctl(['wallets', 'create', '--user', 'usr_x', '--currency', 'USD'], {
        configDir: temp.dir,
        env: {
          PAYCTL_ENV: 'production',
          PAYCTL_BASE_URL: 'https://api.invalid',
          PAYCTL_SECRET_KEY: 'live_abcdefghijklmnop',
        },
      })
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toContain('--yes')
    } finally {
      temp.cleanup()
    }
  })
})

describe('--debug', () => {
  it('logs requests and responses with every secret redacted', async () => {
    const temp = tempConfigDir()
    try {
      const c = sandbox.credentials
      const r = await cliFor(temp.dir)(...loginArgs(sandbox, '--debug'))
      expect(r.exitCode, r.stderr).toBe(0)
      const w = await payctl(['wallets', 'list', '--debug'], {configDir: temp.dir})
      const token = readProfileFile(temp.dir).profiles.local.token.accessToken
      const all = r.stdout + r.stderr + w.stdout + w.stderr
      expect(all).toContain('--> POST')
      expect(all).toContain('<-- 200')
      expect(all).toContain('[REDACTED]')
      expect(all).not.toContain(c.apiSecret)
      expect(all).not.toContain(token)
      expect(all).not.toContain(token.split('.')[2])
    } finally {
      temp.cleanup()
    }
  })
})

describe('credentials never cross between test and live environments', () => {
  /** A server that only records what reaches it. */
  async function recorder() {
    const seen: string[] = []
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`)
      res.writeHead(401, {'content-type': 'application/json'})
      res.end(
        JSON.stringify({error: {code: 'invalid_api_key', message: 'recorded', type: 'authentication_error'}}),
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return {url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve()))}
  }

  it('refuses, before sending anything, every test credential bound for production and every live one bound elsewhere', async () => {
    const rec = await recorder()
    const temp = tempConfigDir()
    try {
      const minted = await fetch(`${sandbox.url}/v1/auth/jwt`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.credentials.secretKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({scopes: ['balance:read']}),
      })
      const sandboxJwt = ((await minted.json()) as {token: string}).token
      const c = sandbox.credentials
      const cases: [string, Record<string, string>, string][] = [
        [
          'a sandbox-minted JWT to production',
          {PAYCTL_ENV: 'production', PAYCTL_BASE_URL: rec.url, PAYCTL_SECRET_KEY: sandboxJwt},
          'TEST_CREDENTIAL_IN_PRODUCTION',
        ],
        [
          'test partner credentials to production',
          {
            PAYCTL_ENV: 'production',
            PAYCTL_BASE_URL: rec.url,
            PAYCTL_API_KEY: c.apiKey,
            PAYCTL_API_SECRET: c.apiSecret,
            PAYCTL_PARTNER_ID: c.partnerId,
          },
          'TEST_CREDENTIAL_IN_PRODUCTION',
        ],
        [
          'a test_ key to an environment named prod',
          {PAYCTL_ENV: 'prod', PAYCTL_BASE_URL: rec.url, PAYCTL_SECRET_KEY: c.secretKey},
          'TEST_CREDENTIAL_IN_PRODUCTION',
        ],
        [
          'a test_ key to an environment named live',
          {PAYCTL_ENV: 'live', PAYCTL_BASE_URL: rec.url, PAYCTL_SECRET_KEY: c.secretKey},
          'TEST_CREDENTIAL_IN_PRODUCTION',
        ],
        [
          'a live_ key to a remote sandbox',
          {
            PAYCTL_ENV: 'sandbox',
            PAYCTL_BASE_URL: 'https://sandbox.payments.invalid',
            PAYCTL_SECRET_KEY: 'live_abcdefghijklmnop',
          },
          'LIVE_KEY_OUTSIDE_PRODUCTION',
        ],
        [
          'a live_ key to an environment of your own',
          {
            PAYCTL_ENV: 'staging',
            PAYCTL_BASE_URL: 'https://staging.payments.invalid',
            PAYCTL_SECRET_KEY: 'live_abcdefghijklmnop',
          },
          'LIVE_KEY_OUTSIDE_PRODUCTION',
        ],
        [
          'live partner credentials to a remote sandbox',
          {
            PAYCTL_ENV: 'sandbox',
            PAYCTL_BASE_URL: 'https://sandbox.payments.invalid',
            PAYCTL_API_KEY: 'pk_live_abcdefgh',
            PAYCTL_API_SECRET: 'sk_live_abcdefghijkl',
            PAYCTL_PARTNER_ID: 'p',
          },
          'LIVE_KEY_OUTSIDE_PRODUCTION',
        ],
      ]
      for (const [what, env, code] of cases) {
        const r = await payctl(['wallets', 'list', '--json', '--debug'], {configDir: temp.dir, env})
        expect(r.exitCode, `${what}: ${r.stdout}${r.stderr}`).toBe(4)
        expect(r.json<{error: {code: string}}>().error.code, what).toBe(code)
        expect(r.stderr, what).not.toContain('-->')
      }
      // Logging in is refused the same way, and saves nothing (the key read from stdin, in a
      // process: test/processes/test-key-from-stdin-refused-for-production.test.ts).
      const login = await cliFor(temp.dir)(
        'auth',
        'login',
        '--env',
        'production',
        '--base-url',
        rec.url,
        '--secret-key',
        c.secretKey,
      )
      expect(login.exitCode).toBe(4)
      expect(login.stderr).toContain('TEST_CREDENTIAL_IN_PRODUCTION')
      const saved = existsSync(join(temp.dir, 'profiles.json')) ? readProfileFile(temp.dir) : {profiles: {}}
      expect(saved.profiles).toEqual({})
      expect(rec.seen).toEqual([])
      // The control: a live key does go to production (the recorder hears it).
      const live = await payctl(['wallets', 'list', '--json'], {
        configDir: temp.dir,
        env: {PAYCTL_ENV: 'production', PAYCTL_BASE_URL: rec.url, PAYCTL_SECRET_KEY: 'live_abcdefghijklmnop'},
      })
      expect(live.exitCode).toBe(4)
      expect(rec.seen).toEqual([expect.stringMatching(/^GET \/v1\/wallets.* Bearer live_abcdefghijklmnop$/)])
    } finally {
      await rec.close()
      temp.cleanup()
    }
  })

  it('asks for --yes before every command that changes something in production, sending nothing first', async () => {
    const rec = await recorder()
    const temp = tempConfigDir()
    const env = {
      PAYCTL_ENV: 'production',
      PAYCTL_BASE_URL: rec.url,
      PAYCTL_SECRET_KEY: 'live_abcdefghijklmnop',
    }
    try {
      const commands = [
        ['wallets', 'create', '--user', 'usr_x', '--currency', 'USD'],
        ['roundups', 'enable', 'usr_x'],
        ['roundups', 'settings', 'set', 'usr_x', '--multiplier', '2'],
        [
          'roundups',
          'process',
          '--user',
          'usr_x',
          '--amount',
          '4.35',
          '--merchant',
          'M',
          '--transaction-id',
          't1',
        ],
        ['payment-methods', 'add', '--user', 'usr_x', '--type', 'card', '--token', 'tok_visa'],
        ['accounts', 'connect', 'usr_x'],
        ['accounts', 'link', 'usr_x', '--link-token', 'link_x'],
        ['api', 'POST', '/users', '-d', '{}'],
      ]
      const results = await Promise.all(commands.map((args) => payctl(args, {configDir: temp.dir, env})))
      for (const [i, r] of results.entries()) {
        expect(r.exitCode, `${commands[i]!.join(' ')}: ${r.stderr}`).toBe(2)
        expect(r.stderr).toContain('CONFIRMATION_REQUIRED')
        expect(r.stderr).toContain('--yes')
      }
      expect(rec.seen).toEqual([])
      // A read needs no confirmation; with --yes the change goes out.
      expect((await payctl(['api', 'GET', '/wallets'], {configDir: temp.dir, env})).exitCode).toBe(4)
      const yes = await payctl(['roundups', 'enable', 'usr_x', '--yes'], {configDir: temp.dir, env})
      expect(yes.exitCode, yes.stderr).toBe(4)
      expect(rec.seen).toEqual([
        expect.stringMatching(/^GET \/v1\/wallets /),
        expect.stringMatching(/^POST \/v1\/roundupsvc\/users\/usr_x\/roundups\/enable /),
      ])
    } finally {
      await rec.close()
      temp.cleanup()
    }
  })
})
