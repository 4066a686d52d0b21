import {readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {loggedInConfigDir, payctl, readProfileFile, runCli, tempConfigDir} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {converse, hasScript} from '../helpers/terminal.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'

/**
 * What of `payctl auth` needs processes of payctl's own: a secret read from stdin, the prompts in
 * a terminal, several processes renewing one profile's token at once, and logging in again with
 * what `sandbox start` keeps in its state file. The rest of auth (both ways of logging in, the
 * cached token and its renewal, logout) runs in-process: test/commands/auth-login-tokens.test.ts.
 * One sandbox process for the file: the state file it writes is part of what is tested here.
 */
let sandbox: SandboxProcess

beforeAll(async () => {
  sandbox = await startSandboxProcess()
})
afterAll(async () => {
  await sandbox.stop()
})

describe('auth login', () => {
  it('logs in with partner credentials, secret read from stdin, and stores the profile 0600 without printing the secret', async () => {
    const temp = tempConfigDir()
    const c = sandbox.credentials
    const login = await payctl(
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
    try {
      expect(login.exitCode, login.stderr).toBe(0)
      const mode = statSync(join(temp.dir, 'profiles.json')).mode & 0o777
      expect(mode).toBe(0o600)
      const file = readProfileFile(temp.dir)
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

describe('logging in again', () => {
  it('works against the profile the sandbox process wrote, and with the suggested command after a logout, while the sandbox runs', async () => {
    const opts = {configDir: sandbox.configDir}
    const login = await payctl(['auth', 'login', '--env', 'local', '--json'], opts)
    expect(login.exitCode, login.stderr).toBe(0)
    expect(login.json()).toMatchObject({
      profile: 'local',
      environment: 'local',
      variant: 'A',
      partnerId: sandbox.credentials.partnerId,
    })
    expect((await payctl(['auth', 'logout'], opts)).exitCode).toBe(0)
    const refused = await payctl(['wallets', 'list'], opts)
    expect(refused.stderr).toContain('Try: payctl auth login --env local')
    const again = await payctl(['auth', 'login', '--env', 'local'], opts)
    expect(again.exitCode, again.stderr).toBe(0)
    expect((await payctl(['wallets', 'list', '--json'], opts)).exitCode).toBe(0)
    // The state file that keeps the credentials is as private as the profile file.
    expect(statSync(join(sandbox.configDir, 'sandbox.json')).mode & 0o077).toBe(0)
  })
})

describe('several processes renewing one token', () => {
  it('two processes renewing one profile at once leave a valid profile file', async () => {
    const temp = await loggedInConfigDir(sandbox)
    try {
      const runs = await Promise.all(
        [1, 2, 3].map(() => runCli(['auth', 'refresh', '--json'], {configDir: temp.dir})),
      )
      for (const r of runs) expect(r.exitCode, r.stderr).toBe(0)
      const file = readProfileFile(temp.dir)
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
    const temp = await loggedInConfigDir(sandbox)
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
      const credentials = readProfileFile(temp.dir).profiles.local.auth
      const other = readProfileFile(temp.dir).profiles.other
      // Each round makes every process want a new token at the same moment: close to expiry (a
      // refresh), already expired (a fresh exchange), or forced.
      const rounds: [string, number | undefined][] = [
        ['near expiry', 3600_000],
        ['expired', -1000],
        ['forced', undefined],
      ]
      for (const [round, expiresIn] of rounds) {
        if (expiresIn !== undefined) {
          const file = readProfileFile(temp.dir)
          file.profiles.local.token.expiresAt = new Date(Date.now() + expiresIn).toISOString()
          writeFileSync(path, JSON.stringify(file, null, '\t'), {mode: 0o600})
        }
        const before = readProfileFile(temp.dir).profiles.local.token.accessToken
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
