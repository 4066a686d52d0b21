import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {RequestLogEntry} from '../../src/contract/request-log.js'
import {cliFor, readProfileFile, requestIdIn, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * `payctl sandbox logs` reads the request log of the sandbox its profile points at. What needs a
 * sandbox process (--detach, its sandbox.log, --quiet, --follow and Ctrl-C): test/processes/sandbox-logs.test.ts.
 */
describe('payctl sandbox logs, against a sandbox and its data file', () => {
  const temp = tempConfigDir()
  const dir = temp.dir
  const run = cliFor(dir)
  // Where `sandbox start` keeps its data file, and so its request log.
  const data = join(dir, 'sandbox.db')
  const logFile = join(dir, 'sandbox.db-requests.log')
  const start = () => startLocalSandbox({data}, {configDir: dir})
  let sandbox: LocalSandbox

  beforeAll(async () => {
    sandbox = await start()
  })
  afterAll(async () => {
    await sandbox.stop()
    temp.cleanup()
  })

  it('finds the line of the request id a failed command printed', async () => {
    const failed = await run('wallets', 'get', 'wal_missing')
    expect(failed.exitCode).toBe(1)
    const id = requestIdIn(failed.stderr)

    const shown = await run('sandbox', 'logs', '--request', id, '--utc')
    expect(shown.exitCode, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(id)
    expect(shown.stdout).toContain('GET /v1/wallets/wal_missing')
    expect(shown.stdout).toMatch(/status\s+404/)
    expect(shown.stdout).toMatch(/error\s+NOT_FOUND/)
    expect(shown.stdout).toMatch(/time\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/)

    // A refused change: its line has the idempotency key the audit log says it was sent with.
    const refused = await run('wallets', 'create', '--user', 'usr_missing', '--currency', 'USD')
    expect(refused.exitCode).toBe(1)
    const refusedId = requestIdIn(refused.stderr)
    const json = await run('sandbox', 'logs', '--request', refusedId, '--json')
    expect(json.exitCode, json.stderr).toBe(0)
    const [entry] = json.json<{entries: RequestLogEntry[]}>().entries
    expect(entry).toMatchObject({method: 'POST', path: '/v1/wallets', status: 400, requestId: refusedId})
    const audit = await run('audit', 'list', '--json')
    const sent = audit
      .json<{entries: {requests: {requestId?: string; idempotencyKey?: string}[]}[]}>()
      .entries.flatMap((e) => e.requests)
      .find((r) => r.requestId === refusedId)
    expect(sent?.idempotencyKey).toBeDefined()
    expect(entry?.idempotencyKey).toBe(sent?.idempotencyKey)

    const unknown = await run('sandbox', 'logs', '--request', 'req_000000000000000000000000')
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('NOT_FOUND')
  })

  it('lists the newest requests, oldest first, filtered by status, path and time', async () => {
    await run('users', 'get', 'usr_nobody')
    const ok = await run(
      'users',
      'create',
      '--email',
      'e@example.test',
      '--first-name',
      'E',
      '--last-name',
      'F',
    )
    expect(ok.exitCode, ok.stderr).toBe(0)

    const all = await run('sandbox', 'logs', '--json', '--limit', '100')
    const entries = all.json<{entries: RequestLogEntry[]}>().entries
    expect(entries.map((e) => `${e.method} ${e.path}`).slice(-2)).toEqual([
      'GET /v1/users/usr_nobody',
      'POST /v1/users',
    ])
    const times = entries.map((e) => e.time)
    expect(times).toEqual([...times].sort())

    const errors = (await run('sandbox', 'logs', '--status', '4xx', '--json')).json<{
      entries: RequestLogEntry[]
    }>().entries
    expect(errors.length).toBeGreaterThanOrEqual(3)
    expect(errors.every((e) => e.status >= 400 && e.status < 500)).toBe(true)

    const human = await run('sandbox', 'logs', '--path', '/v1/users/*', '--since', '1h')
    expect(human.exitCode, human.stderr).toBe(0)
    const lines = human.stdout.trim().split('\n')
    expect(lines.at(-1)).toMatch(
      /^\d\d-\d\d \d\d:\d\d:\d\d {2}404 {2}GET {4}\/v1\/users\/usr_nobody {2}\S+ms {2}req_[0-9a-f]{24} {2}NOT_FOUND$/,
    )
    expect(lines.every((l) => l.includes('/v1/users/'))).toBe(true)

    const none = await run('sandbox', 'logs', '--since', '2999-01-01')
    expect(none.stdout).toBe('No requests logged that match.\n')
  })

  it('refuses a filter it cannot read with a usage error naming the flag', async () => {
    for (const [args, flag] of [
      [['--status', '6xx'], '--status'],
      [['--request', 'txn_123'], '--request'],
      [['--since', 'yesterday'], '--since'],
    ] as const) {
      const r = await run('sandbox', 'logs', ...args)
      expect(r.exitCode, args.join(' ')).toBe(2)
      expect(r.stderr).toContain(flag)
    }
    const both = await run('sandbox', 'logs', '--request', 'req_1', '--follow')
    expect(both.exitCode).toBe(2)
  })

  it('keeps its log beside the data file, 0600, with no body and no secret, across a restart', async () => {
    const marker = 'unmistakable-body-7311@example.test'
    const made = await run(
      'users',
      'create',
      '--email',
      marker,
      '--first-name',
      'Body',
      '--last-name',
      'Marker',
    )
    expect(made.exitCode, made.stderr).toBe(0)
    const before = requestIdIn((await run('users', 'get', 'usr_before_restart')).stderr)

    // Stopped and started again on the same data file (on another port: its profile follows it).
    await sandbox.stop()
    sandbox = await start()
    const found = await run('sandbox', 'logs', '--request', before, '--json')
    expect(found.exitCode, found.stderr).toBe(0)
    expect(found.json<{entries: RequestLogEntry[]}>().entries).toHaveLength(1)

    expect(statSync(logFile).mode & 0o777).toBe(0o600)
    // The partner's secrets (what `sandbox start` keeps in sandbox.json: test/processes/sandbox-logs.test.ts).
    const profile = readProfileFile(dir).profiles.local
    const secrets = [
      profile.auth.apiSecret,
      profile.token?.accessToken,
      sandbox.credentials.apiSecret,
      sandbox.credentials.secretKey,
    ].filter((s): s is string => typeof s === 'string')
    expect(secrets.length).toBeGreaterThanOrEqual(3)
    const shown = await run('sandbox', 'logs', '--json', '--limit', '100')
    for (const text of [readFileSync(logFile, 'utf8'), shown.stdout]) {
      expect(text).toContain('/v1/users')
      for (const s of [marker, 'Marker', ...secrets]) expect(text).not.toContain(s)
    }
  })
})

describe('payctl sandbox logs, against a sandbox in memory', () => {
  it('finds a request in the log kept in memory', async () => {
    const sandbox = await startLocalSandbox()
    try {
      const cli = cliFor(sandbox)
      const failed = await cli('wallets', 'get', 'wal_gone')
      const id = requestIdIn(failed.stderr)
      const found = await cli('sandbox', 'logs', '--request', id, '--json')
      expect(found.exitCode, found.stderr).toBe(0)
      expect(found.json<{entries: RequestLogEntry[]}>().entries[0]).toMatchObject({
        status: 404,
        path: '/v1/wallets/wal_gone',
      })
    } finally {
      await sandbox.stop()
    }
  })
})
