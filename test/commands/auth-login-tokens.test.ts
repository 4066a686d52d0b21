import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {loggedInConfigDir, payctl, readProfileFile, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * `payctl auth` against a sandbox served in this process: logging in either way, the cached token
 * and its renewal, logout. What needs processes of payctl's own (a secret read from stdin, the
 * prompts in a terminal, processes renewing one profile at once, the state file `sandbox start`
 * keeps) is in test/processes/auth-sessions.test.ts.
 */
let sandbox: LocalSandbox

beforeAll(async () => {
  sandbox = await startLocalSandbox()
})
afterAll(async () => {
  await sandbox.stop()
})

/**
 * Run `work` with this process's clock (Date: the sandbox's, and that of payctl's runs in this
 * process, alike) running on from where it stands; `jump(ms)` moves it forward at once, so that a
 * token outlives its lifetime without anyone waiting for it.
 */
async function withMovableClock<T>(work: (jump: (ms: number) => void) => Promise<T>): Promise<T> {
  vi.useFakeTimers({toFake: ['Date'], shouldAdvanceTime: true})
  try {
    return await work((ms) => vi.setSystemTime(Date.now() + ms))
  } finally {
    vi.useRealTimers()
  }
}

describe('auth login', () => {
  it('works at once against the profile the sandbox wrote, and auth status exits 0', async () => {
    const login = await payctl(['auth', 'login', '--env', 'local', '--json'], {configDir: sandbox.configDir})
    expect(login.exitCode, login.stderr).toBe(0)
    expect(login.json()).toMatchObject({
      profile: 'local',
      environment: 'local',
      variant: 'A',
      partnerId: sandbox.credentials.partnerId,
    })
    const status = await payctl(['auth', 'status', '--json'], {configDir: sandbox.configDir})
    expect(status.exitCode, status.stderr).toBe(0)
    const s = status.json<{valid: boolean; scopes: string[]; expiresAt: string}>()
    expect(s.valid).toBe(true)
    expect(s.scopes).toContain('users:write')
    expect(Date.parse(s.expiresAt) - Date.now()).toBeGreaterThan(6 * 86400 * 1000)
  })

  it('logs in with a Variant B secret key and mints a scoped short-lived JWT', async () => {
    const temp = tempConfigDir()
    try {
      const login = await payctl(
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
      expect(login.exitCode, login.stderr).toBe(0)
      expect(login.stdout).not.toContain(sandbox.credentials.secretKey)
      const token = await payctl(['auth', 'token', '--scopes', 'balance:read', '--ttl', '15m'], {
        configDir: temp.dir,
      })
      expect(token.exitCode, token.stderr).toBe(0)
      const jwt = token.stdout.trim()
      expect(jwt).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/)
      const payload = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())
      expect(payload.exp - payload.iat).toBe(900)
      // balance:read lists wallets but cannot create a user
      const ok = await fetch(`${sandbox.url}/v1/wallets?limit=1`, {headers: {authorization: `Bearer ${jwt}`}})
      expect(ok.status).toBe(200)
      const denied = await fetch(`${sandbox.url}/v1/users`, {
        method: 'POST',
        headers: {authorization: `Bearer ${jwt}`, 'content-type': 'application/json'},
        body: JSON.stringify({email: 'a@example.test', first_name: 'A', last_name: 'B'}),
      })
      expect(denied.status).toBe(403)
    } finally {
      temp.cleanup()
    }
  })

  it('refuses wrong credentials with exit 4 and never echoes the secret', async () => {
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
          '--api-key',
          'pk_test_nope',
          '--partner-id',
          'partner_nope',
          '--api-secret',
          'sk_test_wrongsecret123',
        ],
        {configDir: temp.dir},
      )
      expect(r.exitCode).toBe(4)
      expect(r.stderr).toContain('INVALID_CREDENTIALS')
      expect(r.stdout + r.stderr).not.toContain('sk_test_wrongsecret123')
    } finally {
      temp.cleanup()
    }
  })

  it('fails with a named flag, not a prompt, when credentials are missing and there is no TTY', async () => {
    const temp = tempConfigDir()
    try {
      const r = await payctl(['auth', 'login', '--env', 'sandbox', '--base-url', sandbox.url], {
        configDir: temp.dir,
      })
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toContain('--api-key')
      expect(r.stderr).toContain('--secret-key')
    } finally {
      temp.cleanup()
    }
  })
})

describe('tokens', () => {
  it('auth refresh replaces the cached token with a later-expiring one', async () => {
    const temp = await loggedInConfigDir(sandbox)
    try {
      const before = readProfileFile(temp.dir).profiles.local.token
      // A minute later (not a millisecond later, or in the same second of the service's clock).
      const r = await withMovableClock(async (jump) => {
        jump(60_000)
        return payctl(['auth', 'refresh', '--json'], {configDir: temp.dir})
      })
      expect(r.exitCode, r.stderr).toBe(0)
      const after = readProfileFile(temp.dir).profiles.local.token
      expect(after.accessToken).not.toBe(before.accessToken)
      expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.parse(before.expiresAt))
    } finally {
      temp.cleanup()
    }
  })

  it('auth token prints only the token on stdout', async () => {
    const temp = await loggedInConfigDir(sandbox)
    try {
      const r = await payctl(['auth', 'token'], {configDir: temp.dir})
      expect(r.exitCode).toBe(0)
      expect(r.stdout.trim()).toBe(readProfileFile(temp.dir).profiles.local.token.accessToken)
      expect(r.stdout.trim().split('\n')).toHaveLength(1)
    } finally {
      temp.cleanup()
    }
  })

  it('logout revokes the token with the service and forgets the credentials', async () => {
    const temp = await loggedInConfigDir(sandbox)
    try {
      const token = readProfileFile(temp.dir).profiles.local.token.accessToken
      const r = await payctl(['auth', 'logout', '--json'], {configDir: temp.dir})
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.json()).toEqual({profile: 'local', revoked: true})
      const res = await fetch(`${sandbox.url}/v1/wallets?limit=1`, {
        headers: {authorization: `Bearer ${token}`},
      })
      expect(res.status).toBe(401)
      expect(JSON.stringify(await res.json())).toContain('TOKEN_INVALID')
      expect(readProfileFile(temp.dir).profiles.local.auth).toBeUndefined()
      const after = await payctl(['wallets', 'list'], {configDir: temp.dir})
      expect(after.exitCode).toBe(4)
      expect(after.stderr).toContain('Try: payctl auth login --env local')
    } finally {
      temp.cleanup()
    }
  })
})

describe('idempotency keys', () => {
  /** The headers payctl --debug logged for its request to `path`. */
  const headersOf = (stderr: string, path: string): Record<string, string> => {
    const lines = stderr.split('\n')
    const at = lines.findIndex((l) => l.startsWith('--> POST ') && l.endsWith(path))
    expect(at, stderr).toBeGreaterThanOrEqual(0)
    return JSON.parse(lines[at + 1]!.replace(/^\s*headers /, ''))
  }

  it('go with every mutation but the token calls, which are never replayed', async () => {
    const temp = await loggedInConfigDir(sandbox)
    try {
      const refresh = await payctl(['auth', 'refresh', '--debug'], {configDir: temp.dir})
      expect(refresh.exitCode, refresh.stderr).toBe(0)
      expect(headersOf(refresh.stderr, '/v1/auth/refresh')).not.toHaveProperty('idempotency-key')
      const user = await payctl(
        [
          'users',
          'create',
          '--email',
          'keys@example.test',
          '--first-name',
          'K',
          '--last-name',
          'Y',
          '--debug',
        ],
        {configDir: temp.dir},
      )
      expect(user.exitCode, user.stderr).toBe(0)
      expect(headersOf(user.stderr, '/v1/users')['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/)
    } finally {
      temp.cleanup()
    }
  })
})

describe('token expiry', () => {
  it('gets a new token by itself once the cached one has expired', async () => {
    await withMovableClock(async (jump) => {
      // Started on the movable clock: its tokens live a minute of it.
      const short = await startLocalSandbox({tokenTtlSeconds: 60})
      try {
        const login = await payctl(['auth', 'login', '--env', 'local'], {configDir: short.configDir})
        expect(login.exitCode, login.stderr).toBe(0)
        const first = readProfileFile(short.configDir).profiles.local.token.accessToken
        const stale = await fetch(`${short.url}/v1/wallets?limit=1`, {
          headers: {authorization: `Bearer ${first}`},
        })
        expect(stale.status).toBe(200)
        jump(61_000)
        const expired = await fetch(`${short.url}/v1/wallets?limit=1`, {
          headers: {authorization: `Bearer ${first}`},
        })
        expect(expired.status).toBe(401)
        expect(JSON.stringify(await expired.json())).toContain('TOKEN_EXPIRED')
        const r = await payctl(['wallets', 'list', '--json'], {configDir: short.configDir})
        expect(r.exitCode, r.stderr).toBe(0)
        expect(readProfileFile(short.configDir).profiles.local.token.accessToken).not.toBe(first)
      } finally {
        await short.stop()
      }
    })
  })
})

// Last in the file: it revokes every token of the sandbox's partner.
describe('logout --everywhere', () => {
  it("revokes every token of the partner, the other profiles' included", async () => {
    const here = await loggedInConfigDir(sandbox)
    const elsewhere = await loggedInConfigDir(sandbox)
    try {
      const other = readProfileFile(elsewhere.dir).profiles.local.token.accessToken
      const minted = await fetch(`${sandbox.url}/v1/auth/jwt`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.credentials.secretKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({scopes: ['balance:read']}),
      })
      const jwt = ((await minted.json()) as {token: string}).token
      const r = await payctl(['auth', 'logout', '--everywhere', '--json'], {configDir: here.dir})
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.json()).toEqual({profile: 'local', revoked: true})
      for (const token of [other, jwt]) {
        const res = await fetch(`${sandbox.url}/v1/wallets?limit=1`, {
          headers: {authorization: `Bearer ${token}`},
        })
        expect(res.status).toBe(401)
      }
      // The other profile still holds its credentials: it logs in again by itself.
      const again = await payctl(['wallets', 'list', '--json'], {configDir: elsewhere.dir})
      expect(again.exitCode, again.stderr).toBe(0)
    } finally {
      here.cleanup()
      elsewhere.cleanup()
    }
  })
})
