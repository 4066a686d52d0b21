import {chmodSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor} from '../helpers/cli.js'
import {startFaultProxy} from '../helpers/fault-proxy.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

let sandbox: LocalSandbox
let cli: Cli
/** The sandbox's commands with these variables set. */
const withEnv = (env: Record<string, string>) => cliFor(sandbox, {env})
type Checks = {ok: boolean; checks: {name: string; status: string; detail: string; fix?: string}[]}

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox)
})
afterAll(async () => {
  await sandbox.stop()
})

describe('payctl doctor', () => {
  it('passes every check against a healthy sandbox, saying where the credentials come from', async () => {
    const r = await cli('doctor', '--json')
    expect(r.exitCode, r.stdout + r.stderr).toBe(0)
    const {ok, checks} = r.json<Checks>()
    expect(ok).toBe(true)
    expect(checks.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        'profile file',
        'profile',
        'credentials',
        'proxy',
        'reachability',
        'clock skew',
        'credentials work',
      ]),
    )
    expect(checks.find((c) => c.name === 'credentials')?.detail).toContain('from the profile file')
    const human = await cli('doctor')
    expect(human.stdout).toMatch(/✓ reachability: .* answered HTTP \d+ in \d+ ms/)
  })

  it('flags clock skew that would break tokens and signatures, with a fix', async () => {
    const proxy = await startFaultProxy(sandbox.url, (req) =>
      req.url === '/v1/'
        ? {status: 404, headers: {date: new Date(Date.now() - 3_600_000).toUTCString()}}
        : 'pass',
    )
    try {
      const r = await withEnv({PAYCTL_BASE_URL: proxy.url})('doctor', '--json')
      expect(r.exitCode).toBe(1)
      const skew = r.json<Checks>().checks.find((c) => c.name === 'clock skew')
      expect(skew).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/this machine is 36\d\d s ahead of the service/),
      })
      expect(skew?.fix).toContain('NTP')
    } finally {
      await proxy.close()
    }
  })

  it('warns when PAYCTL_* variables override the file, and fails when nothing answers', async () => {
    const c = sandbox.credentials
    const env = {PAYCTL_SECRET_KEY: c.secretKey}
    const over = (await withEnv(env)('doctor', '--json')).json<Checks>()
    expect(over.checks.find((x) => x.name === 'credentials')).toMatchObject({status: 'warn'})
    const down = await withEnv({PAYCTL_BASE_URL: 'http://127.0.0.1:9'})('doctor')
    expect(down.exitCode).toBe(1)
    expect(down.stdout).toMatch(/✗ reachability: NETWORK_ERROR/)
    expect(down.stderr).toContain('DOCTOR_FAILED')
  })

  it('fails on a profile file others can read, with the chmod to run', async () => {
    const file = join(sandbox.configDir, 'profiles.json')
    chmodSync(file, 0o644)
    try {
      const r = await cli('doctor', '--json')
      expect(r.exitCode).toBe(1)
      expect(r.json<Checks>().checks[0]).toMatchObject({
        name: 'profile file',
        status: 'fail',
        fix: `Try: chmod 600 ${file}`,
      })
    } finally {
      chmodSync(file, 0o600)
    }
  })
})

describe('audit log', () => {
  it('records each mutating command with its idempotency key, request id and outcome, and no secret', async () => {
    const user = (
      await cli(
        'users',
        'create',
        '--email',
        'au@example.test',
        '--first-name',
        'A',
        '--last-name',
        'U',
        '--idempotency-key',
        'audit-key-1',
        '--json',
      )
    ).json<{id: string}>()
    await cli('wallets', 'create', '--user', user.id, '--currency', 'USD')
    const failed = await cli('wallets', 'create', '--user', user.id, '--currency', 'USD')
    expect(failed.exitCode).toBe(1)
    await cli('wallets', 'list')
    await cli(
      'auth',
      'login',
      '--env',
      'local',
      '--secret-key',
      sandbox.credentials.secretKey,
      '--profile',
      'other',
    )

    const r = await cli('audit', 'list', '--json', '--limit', '10')
    const {entries, file} = r.json<{
      entries: {
        command: string
        outcome: string
        code?: string
        requests: {idempotencyKey: string; requestId: string; status: number}[]
      }[]
      file: string
    }>()
    expect(entries.map((e) => [e.command.split(' ').slice(1, 3).join(' '), e.outcome, e.code ?? ''])).toEqual(
      [
        ['wallets create', 'error', 'WALLET_EXISTS'],
        ['wallets create', 'ok', ''],
        ['users create', 'ok', ''],
      ],
    )
    const created = entries[2]!
    expect(created.requests[0]).toMatchObject({
      idempotencyKey: 'audit-key-1',
      requestId: expect.stringMatching(/^req_/),
      status: 201,
    })
    expect(entries[0]!.requests[0]!.status).toBe(409)
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain(sandbox.credentials.apiSecret)
    expect(text).not.toContain(sandbox.credentials.secretKey)
    expect(readFileSync(file).length > 0 && (await import('node:fs')).statSync(file).mode & 0o777).toBe(0o600)
    const human = await cli('audit', 'list', '--errors')
    expect(human.stdout).toContain('WALLET_EXISTS (1)')
  })
})

describe('card and account numbers', () => {
  it('shows a new card number once, and masks it in --debug logs', async () => {
    const user = (
      await cli(
        'users',
        'create',
        '--email',
        'card@example.test',
        '--first-name',
        'C',
        '--last-name',
        'D',
        '--json',
      )
    ).json<{id: string}>()
    await cli('wallets', 'create', '--user', user.id, '--currency', 'USD')
    const r = await cli('cards', 'create', user.id, '--json', '--debug')
    expect(r.exitCode, r.stderr).toBe(0)
    const card = r.json<{number: string; last4: string; cvc: string}>()
    expect(card.number).toMatch(/^\d{16}$/)
    expect(r.stderr).not.toContain(card.number)
    expect(r.stderr).toContain(`•••• ${card.last4}`)
    expect(r.stderr).not.toMatch(new RegExp(`"cvc":"${card.cvc}"`))
  })
})
