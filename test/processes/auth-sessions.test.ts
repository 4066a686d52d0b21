import {readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {payctl, runCli, tempConfigDir} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {converse, hasScript} from '../helpers/terminal.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'

let sandbox: SandboxProcess

beforeAll(async () => {
  sandbox = await startSandboxProcess()
})
afterAll(async () => {
  await sandbox.stop()
})

/** A fresh config dir logged in to the sandbox with partner credentials. */
async function loggedInVariantA(): Promise<{dir: string; cleanup: () => void}> {
  const temp = tempConfigDir()
  const c = sandbox.credentials
  const r = await payctl(
    [
      'auth',
      'login',
      '--env',
      'local',
      '--base-url',
      sandbox.url,
      '--api-key',
      c.apiKey,
      '--partner-id',
      c.partnerId,
      '--api-secret',
      '-',
    ],
    {configDir: temp.dir, input: `${c.apiSecret}\n`},
  )
  expect(r.exitCode, r.stderr).toBe(0)
  return temp
}

function profileFile(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'))
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

  it('logs in with partner credentials, secret read from stdin, and stores the profile 0600 without printing the secret', async () => {
    const temp = await loggedInVariantA()
    try {
      const mode = statSync(join(temp.dir, 'profiles.json')).mode & 0o777
      expect(mode).toBe(0o600)
      const file = profileFile(temp.dir)
      expect(file.currentProfile).toBe('local')
      expect(file.profiles.local.token.accessToken).toMatch(/^eyJ/)
      const status = await payctl(['auth', 'status'], {configDir: temp.dir})
      expect(status.exitCode).toBe(0)
      expect(status.stdout).toContain('credentials work')
      expect(status.stdout + status.stderr).not.toContain(sandbox.credentials.apiSecret)
      expect(status.stdout + status.stderr).not.toContain(file.profiles.local.token.accessToken)
    } finally {
      temp.cleanup()
    }
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

describe('auth login in a terminal', () => {
  it.runIf(hasScript)(
    'asks for every value it lacks, the base URL included, and logs in to a service elsewhere',
    async () => {
      const temp = tempConfigDir()
      const c = sandbox.credentials
      try {
        const {screen, code} = await converse(
          ['auth', 'login'],
          [
            [/Environment/, 'staging\r'],
            [/Base URL/, `${sandbox.url}\r`],
            [/How do you authenticate/, '\r'],
            // The question itself: the answer just chosen, echoed, says "API key" too.
            [/\? API key/, `${c.apiKey}\r`],
            [/Partner id/, `${c.partnerId}\r`],
            [/API secret/, `${c.apiSecret}\r`],
          ],
          {configDir: temp.dir},
        )
        expect(code, screen).toBe(0)
        expect(screen).toContain(`Logged in to staging (${sandbox.url})`)
        expect(screen).not.toContain(c.apiSecret)
      } finally {
        temp.cleanup()
      }
    },
  )

  it.runIf(hasScript)(
    'shows the local default for the base URL, and says at once, before any secret, that nothing answers there',
    async () => {
      const temp = tempConfigDir()
      const port = await freePort()
      try {
        const {screen, code} = await converse(
          ['auth', 'login', '--env', 'local'],
          [[/Base URL \(http:\/\/127\.0\.0\.1:4010\)/, `\x15http://127.0.0.1:${port}\r`]],
          {configDir: temp.dir},
        )
        expect(code).toBe(1)
        expect(screen).toContain(`nothing is listening at http://127.0.0.1:${port}`)
        expect(screen).toContain('Try: payctl sandbox start')
        expect(screen).not.toMatch(/How do you authenticate|API key|Secret key|retrying/)
      } finally {
        temp.cleanup()
      }
    },
  )
})

describe('tokens', () => {
  it('auth refresh replaces the cached token with a later-expiring one', async () => {
    const temp = await loggedInVariantA()
    try {
      const before = profileFile(temp.dir).profiles.local.token
      await new Promise((r) => setTimeout(r, 1100))
      const r = await payctl(['auth', 'refresh', '--json'], {configDir: temp.dir})
      expect(r.exitCode, r.stderr).toBe(0)
      const after = profileFile(temp.dir).profiles.local.token
      expect(after.accessToken).not.toBe(before.accessToken)
      expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.parse(before.expiresAt))
    } finally {
      temp.cleanup()
    }
  })

  it('auth token prints only the token on stdout', async () => {
    const temp = await loggedInVariantA()
    try {
      const r = await payctl(['auth', 'token'], {configDir: temp.dir})
      expect(r.exitCode).toBe(0)
      expect(r.stdout.trim()).toBe(profileFile(temp.dir).profiles.local.token.accessToken)
      expect(r.stdout.trim().split('\n')).toHaveLength(1)
    } finally {
      temp.cleanup()
    }
  })

  it('logout revokes the token with the service and forgets the credentials', async () => {
    const temp = await loggedInVariantA()
    try {
      const token = profileFile(temp.dir).profiles.local.token.accessToken
      const r = await payctl(['auth', 'logout', '--json'], {configDir: temp.dir})
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.json()).toEqual({profile: 'local', revoked: true})
      const res = await fetch(`${sandbox.url}/v1/wallets?limit=1`, {
        headers: {authorization: `Bearer ${token}`},
      })
      expect(res.status).toBe(401)
      expect(JSON.stringify(await res.json())).toContain('TOKEN_INVALID')
      expect(profileFile(temp.dir).profiles.local.auth).toBeUndefined()
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
    const temp = await loggedInVariantA()
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

describe('logging in again', () => {
  it('works with the suggested command after a logout, while the sandbox runs', async () => {
    const own = await startSandboxProcess()
    try {
      const opts = {configDir: own.configDir}
      expect((await payctl(['auth', 'login', '--env', 'local'], opts)).exitCode).toBe(0)
      expect((await payctl(['auth', 'logout'], opts)).exitCode).toBe(0)
      const refused = await payctl(['wallets', 'list'], opts)
      expect(refused.stderr).toContain('Try: payctl auth login --env local')
      const again = await payctl(['auth', 'login', '--env', 'local'], opts)
      expect(again.exitCode, again.stderr).toBe(0)
      expect((await payctl(['wallets', 'list', '--json'], opts)).exitCode).toBe(0)
      // The state file that keeps the credentials is as private as the profile file.
      expect(statSync(join(own.configDir, 'sandbox.json')).mode & 0o077).toBe(0)
    } finally {
      await own.stop()
    }
  })
})

describe('token expiry', () => {
  it('gets a new token by itself once the cached one has expired', async () => {
    const short = await startSandboxProcess(['--token-ttl', '2s'])
    try {
      const login = await payctl(['auth', 'login', '--env', 'local'], {configDir: short.configDir})
      expect(login.exitCode, login.stderr).toBe(0)
      const first = profileFile(short.configDir).profiles.local.token.accessToken
      const stale = await fetch(`${short.url}/v1/wallets?limit=1`, {
        headers: {authorization: `Bearer ${first}`},
      })
      expect(stale.status).toBe(200)
      await new Promise((r) => setTimeout(r, 2500))
      const expired = await fetch(`${short.url}/v1/wallets?limit=1`, {
        headers: {authorization: `Bearer ${first}`},
      })
      expect(expired.status).toBe(401)
      expect(JSON.stringify(await expired.json())).toContain('TOKEN_EXPIRED')
      const r = await payctl(['wallets', 'list', '--json'], {configDir: short.configDir})
      expect(r.exitCode, r.stderr).toBe(0)
      expect(profileFile(short.configDir).profiles.local.token.accessToken).not.toBe(first)
    } finally {
      await short.stop()
    }
  })

  it('two processes renewing one profile at once leave a valid profile file', async () => {
    const temp = await loggedInVariantA()
    try {
      const runs = await Promise.all(
        [1, 2, 3].map(() => runCli(['auth', 'refresh', '--json'], {configDir: temp.dir})),
      )
      for (const r of runs) expect(r.exitCode, r.stderr).toBe(0)
      const file = profileFile(temp.dir)
      const tokens = runs.map((r) => r.json<{expiresAt: string}>().expiresAt)
      expect(tokens).toHaveLength(3)
      const status = await payctl(['auth', 'status', '--json'], {configDir: temp.dir})
      expect(status.exitCode).toBe(0)
      expect(file.profiles.local.token.accessToken).toMatch(/^eyJ/)
    } finally {
      temp.cleanup()
    }
  })

  it('several payctl processes renewing one token at once, round after round, leave the profile file whole and usable', async () => {
    const temp = await loggedInVariantA()
    const path = join(temp.dir, 'profiles.json')
    try {
      // A second profile in the same file must come through every round untouched.
      const bystander = await payctl(
        [
          'auth',
          'login',
          '--profile',
          'other',
          '--env',
          'local',
          '--base-url',
          sandbox.url,
          '--secret-key',
          sandbox.credentials.secretKey,
        ],
        {configDir: temp.dir},
      )
      expect(bystander.exitCode, bystander.stderr).toBe(0)
      await payctl(['profiles', 'use', 'local'], {configDir: temp.dir})
      const credentials = profileFile(temp.dir).profiles.local.auth
      const other = profileFile(temp.dir).profiles.other
      // Each round makes every process want a new token at the same moment: close to expiry (a
      // refresh), already expired (a fresh exchange), or forced.
      const rounds: [string, number | undefined][] = [
        ['near expiry', 3600_000],
        ['expired', -1000],
        ['forced', undefined],
      ]
      for (const [round, expiresIn] of rounds) {
        if (expiresIn !== undefined) {
          const file = profileFile(temp.dir)
          file.profiles.local.token.expiresAt = new Date(Date.now() + expiresIn).toISOString()
          writeFileSync(path, JSON.stringify(file, null, '\t'), {mode: 0o600})
        }
        const before = profileFile(temp.dir).profiles.local.token.accessToken
        const runs = await Promise.all(
          ['auth refresh', 'wallets list', 'auth refresh', 'wallets list'].map((cmd) =>
            runCli([...cmd.split(' '), '--json'], {configDir: temp.dir}),
          ),
        )
        for (const r of runs) expect(r.exitCode, `${round}: ${r.stderr}${r.stdout}`).toBe(0)
        // The file is one whole JSON document, still private, with no lock or temporary file left.
        const text = readFileSync(path, 'utf8')
        expect(() => JSON.parse(text), `${round}: ${text}`).not.toThrow()
        expect(statSync(path).mode & 0o777).toBe(0o600)
        expect(
          readdirSync(temp.dir).filter((f) => f.startsWith('profiles') && f !== 'profiles.json'),
        ).toEqual([])
        const file = JSON.parse(text)
        expect(file.currentProfile).toBe('local')
        expect(file.profiles.local.auth).toEqual(credentials)
        expect(file.profiles.other).toEqual(other)
        const token = file.profiles.local.token
        expect(token.accessToken, round).not.toBe(before)
        expect(Date.parse(token.expiresAt) - Date.now()).toBeGreaterThan(6 * 86400 * 1000)
        // The token the file kept works with the service.
        const res = await fetch(`${sandbox.url}/v1/wallets?limit=1`, {
          headers: {authorization: `Bearer ${token.accessToken}`},
        })
        expect(res.status, round).toBe(200)
      }
      const status = await payctl(['auth', 'status', '--json'], {configDir: temp.dir})
      expect(status.exitCode, status.stderr).toBe(0)
    } finally {
      temp.cleanup()
    }
  })
})

// Last in the file: it revokes every token of the sandbox's partner.
describe('logout --everywhere', () => {
  it("revokes every token of the partner, the other profiles' included", async () => {
    const here = await loggedInVariantA()
    const elsewhere = await loggedInVariantA()
    try {
      const other = profileFile(elsewhere.dir).profiles.local.token.accessToken
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
