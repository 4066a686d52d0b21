import {createServer} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'

interface JsonError {
  error: {
    code: string
    message: string
    exitCode: number
    suggestions?: string[]
    details?: Record<string, unknown>
  }
}

let sandbox: LocalSandbox
const config = tempConfigDir()
/** A config dir with no profile: what a newcomer has. */
const cli = cliFor(config.dir)
beforeAll(async () => {
  sandbox = await startLocalSandbox()
})
afterAll(async () => {
  await sandbox.stop()
  config.cleanup()
})

describe('errors a newcomer meets', () => {
  it('a refused connection to a local URL was never applied: no idempotency advice, but sandbox start', async () => {
    const port = await freePort()
    const r = await cliFor(config.dir, {
      env: {PAYCTL_BASE_URL: `http://127.0.0.1:${port}`, PAYCTL_SECRET_KEY: sandbox.credentials.secretKey},
    })('users', 'create', '--email', 'a@example.test', '--first-name', 'A', '--last-name', 'B', '--json')
    const {error} = r.json<JsonError>()
    expect(error.code).toBe('NETWORK_ERROR')
    expect(error.message).not.toContain('may or may not')
    expect(error.details?.sent).toBe(false)
    expect(error.suggestions).toEqual(['Try: payctl sandbox start'])
    expect(r.exitCode).toBe(1)
  })

  it('a GET whose token exchange broke off suggests no flag the command lacks', async () => {
    // Accepts, then drops every connection: the exchange may have arrived, and never answers.
    const server = createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as {port: number}).port
    try {
      const c = sandbox.credentials
      const r = await cliFor(config.dir, {
        env: {
          PAYCTL_BASE_URL: `http://127.0.0.1:${port}`,
          PAYCTL_API_KEY: c.apiKey,
          PAYCTL_API_SECRET: c.apiSecret,
          PAYCTL_PARTNER_ID: c.partnerId,
        },
      })('wallets', 'get', 'wal_0123456789abcdef01234567')
      expect(r.stderr).toContain('NETWORK_ERROR')
      expect(r.stderr).not.toContain('--idempotency-key')
      expect(r.exitCode).toBe(1)
    } finally {
      server.close()
    }
  })

  it('NOT_LOGGED_IN with no sandbox profile suggests the command that writes one', async () => {
    const fresh = tempConfigDir()
    try {
      const r = await cliFor(fresh.dir)('wallets', 'get', 'wal_0123456789abcdef01234567', '--json')
      const {error} = r.json<JsonError>()
      expect(error.code).toBe('NOT_LOGGED_IN')
      // Both ways in: a local sandbox, or a service elsewhere.
      expect(error.suggestions).toEqual([
        'Try: payctl sandbox start   (a local sandbox, which logs you in)',
        'Or: payctl auth login   (a service elsewhere: it asks for the URL and credentials)',
      ])
      expect(r.exitCode).toBe(4)
      // The old advice, `auth login --env local`, has nothing to log in with here.
      const login = await cliFor(fresh.dir)('auth', 'login', '--env', 'local')
      expect(login.exitCode).not.toBe(0)
    } finally {
      fresh.cleanup()
    }
  })

  it('reports every missing required flag at once', async () => {
    const r = await cli('users', 'create', '--email', 'a@example.test', '--json')
    const {error} = r.json<JsonError>()
    expect(error.code).toBe('MISSING_FLAG')
    expect(error.message).toContain('--first-name')
    expect(error.message).toContain('--last-name')
    expect(r.exitCode).toBe(2)
    const w = await cli('wallets', 'create')
    expect(w.stderr).toMatch(/--user.*--currency/)
    // The flags a method requires count too, and a currency the amount does not carry.
    const t = await cli('transactions', 'create', '--method', 'ach', '--json')
    expect(t.json<JsonError>().error.details).toEqual({
      flags: ['--amount', '--currency', '--payment-method', '--to'],
    })
    const transfer = await cli('transactions', 'create', '--method', 'wallet', '--amount', '5.00USD')
    expect(transfer.stderr).toContain('missing required flags --from, --to')
    expect(transfer.exitCode).toBe(2)
  })

  it('an unknown --currency is a usage error (exit 2), like a malformed amount', async () => {
    const r = await cli('wallets', 'create', '--user', 'usr_x', '--currency', 'XYZ')
    expect(r.stderr).toContain('INVALID_CURRENCY')
    expect(r.stderr).not.toContain('Parsing --currency')
    expect(r.exitCode).toBe(2)
    const amount = await cli(
      'wallets',
      'create',
      '--user',
      'usr_x',
      '--currency',
      'USD',
      '--initial-balance',
      'x',
    )
    expect(amount.exitCode).toBe(2)
  })

  it('a test credential bound for production is an auth error (exit 4) with a fix that changes something', async () => {
    const fromEnv = await cliFor(config.dir, {
      env: {
        PAYCTL_ENV: 'production',
        PAYCTL_BASE_URL: sandbox.url,
        PAYCTL_SECRET_KEY: sandbox.credentials.secretKey,
      },
    })('wallets', 'list', '--json')
    const {error} = fromEnv.json<JsonError>()
    expect(error.code).toBe('TEST_CREDENTIAL_IN_PRODUCTION')
    expect(fromEnv.exitCode).toBe(4)
    // `auth login` would change nothing while the variables win: the fix names them.
    expect(error.suggestions?.join(' ')).toContain('PAYCTL_SECRET_KEY')
  })

  it('a mistyped command suggests the command whose word it resembles, with exit 2', async () => {
    const r = await cli('logn')
    expect(r.stderr).toContain('Did you mean payctl auth login?')
    expect(r.exitCode).toBe(2)
    const v = await cli('wallets', 'gte')
    expect(v.stderr).toContain('Did you mean payctl wallets get?')
    // A word the typed one begins ranks before a nearer edit: stat is the start of status, not of start.
    const s = await cli('sandbox', 'stat')
    expect(s.stderr).toContain('Did you mean payctl sandbox status?')
  })

  it('a mistyped flag suggests the closest flag of the command, with exit 2', async () => {
    const cases: [string[], string][] = [
      [['wallets', 'list', '--usr', 'usr_x'], '--user'],
      [['transactions', 'create', '--ammount', '5'], '--amount'],
      [['transactions', 'list', '--walet', 'wal_x'], '--wallet'],
    ]
    for (const [args, flag] of cases) {
      const r = await cli(...args)
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toContain(`Nonexistent flag: ${args[2]}`)
      expect(r.stderr).toContain(`Did you mean ${flag}?`)
    }
    // Nothing close: no guess.
    const far = await cli('wallets', 'list', '--zzzzzz')
    expect(far.stderr).not.toContain('Did you mean')
  })
})
