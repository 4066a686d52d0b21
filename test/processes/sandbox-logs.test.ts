import {spawn} from 'node:child_process'
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {RequestLogEntry} from '../../src/contract/request-log.js'
import {cliEnv, payctl, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {startSandboxProcess} from '../helpers/sandbox.js'

/** The request id an error printed (`request id: req_…`). */
function requestIdIn(stderr: string): string {
  const id = /request id: (req_[0-9a-f]+)/.exec(stderr)?.[1]
  if (id === undefined) throw new Error(`no request id in:\n${stderr}`)
  return id
}

describe('payctl sandbox logs, against a detached sandbox and its data file', () => {
  const temp = tempConfigDir()
  const dir = temp.dir
  const run = (args: string[]) => payctl(args, {configDir: dir})
  const logFile = join(dir, 'sandbox.db-requests.log')

  beforeAll(async () => {
    const up = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--rate-limit', 'off'], {
      configDir: dir,
      timeoutMs: 30_000,
    })
    expect(up.exitCode, up.stderr).toBe(0)
  }, 40_000)
  afterAll(async () => {
    await runCli(['sandbox', 'stop'], {configDir: dir})
    temp.cleanup()
  })

  it('finds the line of the request id a failed command printed', async () => {
    const failed = await run(['wallets', 'get', 'wal_missing'])
    expect(failed.exitCode).toBe(1)
    const id = requestIdIn(failed.stderr)

    const shown = await run(['sandbox', 'logs', '--request', id, '--utc'])
    expect(shown.exitCode, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(id)
    expect(shown.stdout).toContain('GET /v1/wallets/wal_missing')
    expect(shown.stdout).toMatch(/status\s+404/)
    expect(shown.stdout).toMatch(/error\s+NOT_FOUND/)
    expect(shown.stdout).toMatch(/time\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/)

    // A refused change: its line has the idempotency key the audit log says it was sent with.
    const refused = await run(['wallets', 'create', '--user', 'usr_missing', '--currency', 'USD'])
    expect(refused.exitCode).toBe(1)
    const refusedId = requestIdIn(refused.stderr)
    const json = await run(['sandbox', 'logs', '--request', refusedId, '--json'])
    expect(json.exitCode, json.stderr).toBe(0)
    const [entry] = json.json<{entries: RequestLogEntry[]}>().entries
    expect(entry).toMatchObject({method: 'POST', path: '/v1/wallets', status: 400, requestId: refusedId})
    const audit = await run(['audit', 'list', '--json'])
    const sent = audit
      .json<{entries: {requests: {requestId?: string; idempotencyKey?: string}[]}[]}>()
      .entries.flatMap((e) => e.requests)
      .find((r) => r.requestId === refusedId)
    expect(sent?.idempotencyKey).toBeDefined()
    expect(entry?.idempotencyKey).toBe(sent?.idempotencyKey)

    const unknown = await run(['sandbox', 'logs', '--request', 'req_000000000000000000000000'])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('NOT_FOUND')
  })

  it('lists the newest requests, oldest first, filtered by status, path and time', async () => {
    await run(['users', 'get', 'usr_nobody'])
    const ok = await run([
      'users',
      'create',
      '--email',
      'e@example.test',
      '--first-name',
      'E',
      '--last-name',
      'F',
    ])
    expect(ok.exitCode, ok.stderr).toBe(0)

    const all = await run(['sandbox', 'logs', '--json', '--limit', '100'])
    const entries = all.json<{entries: RequestLogEntry[]}>().entries
    expect(entries.map((e) => `${e.method} ${e.path}`).slice(-2)).toEqual([
      'GET /v1/users/usr_nobody',
      'POST /v1/users',
    ])
    const times = entries.map((e) => e.time)
    expect(times).toEqual([...times].sort())

    const errors = (await run(['sandbox', 'logs', '--status', '4xx', '--json'])).json<{
      entries: RequestLogEntry[]
    }>().entries
    expect(errors.length).toBeGreaterThanOrEqual(3)
    expect(errors.every((e) => e.status >= 400 && e.status < 500)).toBe(true)

    const human = await run(['sandbox', 'logs', '--path', '/v1/users/*', '--since', '1h'])
    expect(human.exitCode, human.stderr).toBe(0)
    const lines = human.stdout.trim().split('\n')
    expect(lines.at(-1)).toMatch(
      /^\d\d-\d\d \d\d:\d\d:\d\d {2}404 {2}GET {4}\/v1\/users\/usr_nobody {2}\S+ms {2}req_[0-9a-f]{24} {2}NOT_FOUND$/,
    )
    expect(lines.every((l) => l.includes('/v1/users/'))).toBe(true)

    const none = await run(['sandbox', 'logs', '--since', '2999-01-01'])
    expect(none.stdout).toBe('No requests logged that match.\n')
  })

  it('refuses a filter it cannot read with a usage error naming the flag', async () => {
    for (const [args, flag] of [
      [['--status', '6xx'], '--status'],
      [['--request', 'txn_123'], '--request'],
      [['--since', 'yesterday'], '--since'],
    ] as const) {
      const r = await run(['sandbox', 'logs', ...args])
      expect(r.exitCode, args.join(' ')).toBe(2)
      expect(r.stderr).toContain(flag)
    }
    const both = await run(['sandbox', 'logs', '--request', 'req_1', '--follow'])
    expect(both.exitCode).toBe(2)
  })

  it('keeps its log beside the data file, 0600, with no body and no secret, across a restart', async () => {
    const marker = 'unmistakable-body-7311@example.test'
    const made = await run([
      'users',
      'create',
      '--email',
      marker,
      '--first-name',
      'Body',
      '--last-name',
      'Marker',
    ])
    expect(made.exitCode, made.stderr).toBe(0)
    const before = requestIdIn((await run(['users', 'get', 'usr_before_restart'])).stderr)

    const stopped = await runCli(['sandbox', 'stop'], {configDir: dir})
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    const up = await runCli(['sandbox', 'start', '--detach', '--port', '0', '--rate-limit', 'off'], {
      configDir: dir,
      timeoutMs: 30_000,
    })
    expect(up.exitCode, up.stderr).toBe(0)
    const found = await run(['sandbox', 'logs', '--request', before, '--json'])
    expect(found.exitCode, found.stderr).toBe(0)
    expect(found.json<{entries: RequestLogEntry[]}>().entries).toHaveLength(1)

    expect(statSync(logFile).mode & 0o777).toBe(0o600)
    const profile = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles.local
    const state = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'))
    const secrets = [profile.auth.apiSecret, profile.token?.accessToken, state.credentials.apiSecret].filter(
      (s): s is string => typeof s === 'string',
    )
    expect(secrets.length).toBeGreaterThanOrEqual(2)
    const shown = await run(['sandbox', 'logs', '--json', '--limit', '100'])
    for (const text of [readFileSync(logFile, 'utf8'), shown.stdout]) {
      expect(text).toContain('/v1/users')
      for (const s of [marker, 'Marker', ...secrets]) expect(text).not.toContain(s)
    }
  }, 60_000)

  it('--follow prints each new request as it comes, and Ctrl-C ends it with exit 0', async () => {
    const follower = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'run.js'), 'sandbox', 'logs', '--follow', '--json'],
      {
        env: cliEnv(dir),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    let err = ''
    follower.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    follower.stderr.on('data', (c: Buffer) => {
      err += c.toString()
    })
    const exited = new Promise<number | null>((resolve) => follower.once('exit', (code) => resolve(code)))
    const until = async (seen: () => boolean, what: string) => {
      for (let waited = 0; !seen(); waited += 100) {
        if (waited > 20_000) throw new Error(`${what} never came:\n${out}\n${err}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    try {
      // The newest lines come first; then what happens after.
      await until(() => out.includes('\n'), 'the newest lines')
      const failed = await run(['users', 'get', 'usr_followed'])
      const id = requestIdIn(failed.stderr)
      await until(() => out.includes(id), `the line of ${id}`)
      follower.kill('SIGINT')
      expect(await exited).toBe(0)
      const lines = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RequestLogEntry)
      expect(lines.filter((l) => l.requestId === id)).toEqual([
        expect.objectContaining({path: '/v1/users/usr_followed', status: 404, errorCode: 'NOT_FOUND'}),
      ])
      // Its own polls are not in the log it prints.
      expect(lines.some((l) => l.path.startsWith('/_sandbox/logs'))).toBe(false)
    } finally {
      follower.kill('SIGKILL')
    }
  }, 60_000)
})

describe('payctl sandbox logs, against a foreground sandbox in memory', () => {
  it('reads the log of a --quiet sandbox, and a loud one keeps its lines on stderr', async () => {
    for (const extra of [['--quiet'], []]) {
      const sandbox = await startSandboxProcess(extra)
      try {
        const failed = await payctl(['wallets', 'get', 'wal_gone'], {configDir: sandbox.configDir})
        const id = requestIdIn(failed.stderr)
        const found = await payctl(['sandbox', 'logs', '--request', id, '--json'], {
          configDir: sandbox.configDir,
        })
        expect(found.exitCode, found.stderr).toBe(0)
        expect(found.json<{entries: RequestLogEntry[]}>().entries[0]).toMatchObject({
          status: 404,
          path: '/v1/wallets/wal_gone',
        })
        if (extra.length === 0) expect(sandbox.log()).toContain(`GET /v1/wallets/wal_gone 404`)
        else expect(sandbox.log()).not.toContain(id)
      } finally {
        await sandbox.stop()
      }
    }
  }, 60_000)
})

describe("a partner's credentials in a shared sandbox's logs", () => {
  const temp = tempConfigDir()
  const dir = temp.dir
  const run = (args: string[]) => payctl(args, {configDir: dir})
  afterAll(async () => {
    await runCli(['sandbox', 'stop'], {configDir: dir})
    temp.cleanup()
  })

  it('are redacted however spelled, in the request log file, GET /_sandbox/logs and sandbox.log', async () => {
    const up = await runCli(
      ['sandbox', 'start', '--detach', '--port', '0', '--rate-limit', 'off', '--json', '--show-secrets'],
      {
        configDir: dir,
        timeoutMs: 30_000,
      },
    )
    expect(up.exitCode, up.stderr).toBe(0)
    const {url, credentials: operator} = up.json<{url: string; credentials: {secretKey: string}}>()
    // A partner who is not the operator, and each credential it holds.
    const made = await run(['sandbox', 'partners', 'create', 'guest', '--json'])
    expect(made.exitCode, made.stderr).toBe(0)
    const guest = made.json<{apiKey: string; apiSecret: string; secretKey: string}>()
    const jwt = (await run(['auth', 'token', '--profile', 'guest'])).stdout.trim()
    expect(jwt).toMatch(/^eyJ/)
    const hook = await run([
      'webhooks',
      'register',
      '--url',
      'http://127.0.0.1:9/hooks',
      '--events',
      '*',
      '--profile',
      'guest',
      '--json',
    ])
    const whsec = hook.json<{secret: string}>().secret
    expect(whsec).toMatch(/^whsec_/)

    const key = guest.secretKey
    const body = key.slice('test_'.length)
    const escapedAll = [...key].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')
    // What each request carries, as written: none of it may reach a log.
    const spellings: {name: string; sent: string; path: string; headers?: Record<string, string>}[] = [
      {name: 'plain, in a path', sent: key, path: `/v1/users/${key}`},
      {name: 'inside wal_test_…', sent: key, path: `/v1/wallets/wal_${key}`},
      {name: 'test%5F…', sent: `test%5F${body}`, path: `/v1/users/test%5F${body}`},
      {name: 'test%5f…', sent: `test%5f${body}`, path: `/v1/users/test%5f${body}`},
      {name: 'every character escaped', sent: escapedAll, path: `/v1/users/${escapedAll}`},
      {name: 'escaped twice', sent: `test%255F${body}`, path: `/v1/users/test%255F${body}`},
      {name: 'in a query', sent: key, path: `/v1/users?email=${key}`},
      {name: 'in a header', sent: key, path: '/v1/users/usr_header_0001', headers: {'x-note': key}},
      {
        name: 'in an idempotency key, order_test_…',
        sent: key,
        path: '/v1/users',
        headers: {'idempotency-key': `order_${key}`},
      },
      {
        name: 'escaped in an idempotency key',
        sent: `test%5f${body}`,
        path: '/v1/users',
        headers: {'idempotency-key': `order_test%5f${body}`},
      },
      {name: 'the api secret', sent: guest.apiSecret, path: `/v1/users/${guest.apiSecret}`},
      {name: 'the api key', sent: guest.apiKey, path: `/v1/users/${guest.apiKey}`},
      // Longer than an id may be, so on a path no route takes; a log cuts it at 512 characters.
      {name: 'an access token', sent: jwt.slice(0, 100), path: `/v1/tokens/${jwt}`},
      {name: 'a webhook secret', sent: whsec, path: `/v1/webhooks/whk_${whsec}`},
    ]
    const send = (path: string, headers: Record<string, string> = {}, auth: string | null = key) => {
      const post = path === '/v1/users'
      return fetch(`${url}${path}`, {
        method: post ? 'POST' : 'GET',
        headers: {
          ...(auth === null ? {} : {authorization: `Bearer ${auth}`}),
          ...(post ? {'content-type': 'application/json'} : {}),
          ...headers,
        },
        ...(post ? {body: JSON.stringify({email: 'g@example.test', first_name: 'G', last_name: 'H'})} : {}),
      }).then((res) => res.arrayBuffer())
    }
    for (const s of spellings) {
      await send(s.path, s.headers)
      // Without a credential too: a line of no partner, which the operator reads.
      await send(s.path, s.headers, null)
    }
    const ordinary = '/v1/wallets/wal_ordinary_0123456789'
    await send(ordinary)

    const read = async (secret: string) => {
      const res = await fetch(`${url}/_sandbox/logs?limit=100`, {
        headers: {authorization: `Bearer ${secret}`},
      })
      expect(res.status).toBe(200)
      return res.text()
    }
    const route = `${await read(key)}\n${await read(operator.secretKey)}`
    expect((await runCli(['sandbox', 'stop'], {configDir: dir})).exitCode).toBe(0)
    const logs = {
      'GET /_sandbox/logs': route,
      'the request log file': readFileSync(join(dir, 'sandbox.db-requests.log'), 'utf8'),
      'sandbox.log': readFileSync(join(dir, 'sandbox.log'), 'utf8'),
    }
    // Each log has the lines (an ordinary id as sent, a key inside an id redacted), and no spelling.
    const leaks: string[] = []
    const missing: string[] = []
    for (const [where, text] of Object.entries(logs)) {
      for (const s of spellings) if (text.includes(s.sent)) leaks.push(`${s.name}, in ${where}`)
      if (text.includes(body)) leaks.push(`the secret key's random part, in ${where}`)
      for (const line of [ordinary, '/v1/wallets/wal_test_[REDACTED]'])
        if (!text.includes(line)) missing.push(`${line}, in ${where}`)
    }
    expect({leaks, missing}).toEqual({leaks: [], missing: []})
    expect(logs['sandbox.log']).toMatch(/GET \/v1\/wallets\/wal_test_\[REDACTED\] 404 /)
    expect(logs['the request log file']).toContain('"idempotencyKey":"order_test_[REDACTED]"')
  }, 60_000)
})
