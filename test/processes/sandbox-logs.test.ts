import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {RequestLogEntry} from '../../src/contract/request-log.js'
import {cliEnv, cliFor, ROOT, requestIdIn, runCli, tempConfigDir} from '../helpers/cli.js'
import {startSandboxProcess} from '../helpers/sandbox.js'

/**
 * The request log of sandbox processes: one started with --detach (its sandbox.log, --follow and
 * Ctrl-C, a partner's credentials in every log), one --quiet. Reading, filtering and keeping the log:
 * test/commands/sandbox-logs-reading.test.ts.
 */
describe('payctl sandbox logs, against a detached sandbox shared by partners', () => {
  const temp = tempConfigDir()
  const dir = temp.dir
  const run = cliFor(dir)
  let detached: {url: string; operator: {secretKey: string}}
  let stopped = false

  beforeAll(async () => {
    const up = await runCli(
      ['sandbox', 'start', '--detach', '--port', '0', '--rate-limit', 'off', '--json', '--show-secrets'],
      {configDir: dir, timeoutMs: 30_000},
    )
    expect(up.exitCode, up.stderr).toBe(0)
    const started = up.json<{url: string; credentials: {secretKey: string}}>()
    detached = {url: started.url, operator: started.credentials}
  }, 40_000)
  afterAll(async () => {
    if (!stopped) await runCli(['sandbox', 'stop'], {configDir: dir})
    temp.cleanup()
  })

  it('--follow prints each new request as it comes, and Ctrl-C ends it with exit 0', async () => {
    expect((await run('users', 'get', 'usr_before_following')).exitCode).toBe(1)
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
      const failed = await run('users', 'get', 'usr_followed')
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
  })

  it('are redacted however spelled, in the request log file, GET /_sandbox/logs and sandbox.log', async () => {
    const {url, operator} = detached
    // A partner who is not the operator, and each credential it holds.
    const made = await run('sandbox', 'partners', 'create', 'guest', '--json')
    expect(made.exitCode, made.stderr).toBe(0)
    const guest = made.json<{apiKey: string; apiSecret: string; secretKey: string}>()
    const jwt = (await run('auth', 'token', '--profile', 'guest')).stdout.trim()
    expect(jwt).toMatch(/^eyJ/)
    const hook = await run(
      'webhooks',
      'register',
      '--url',
      'http://127.0.0.1:9/hooks',
      '--events',
      '*',
      '--profile',
      'guest',
      '--json',
    )
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
    // What `sandbox start` kept of the operator's own credentials, to be found in no log either.
    const state = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8'))
    const own = [state.credentials.apiSecret, operator.secretKey]
    expect(own.every((s) => typeof s === 'string' && s.length > 0)).toBe(true)
    // Stopped, so that everything it logged is written.
    expect((await runCli(['sandbox', 'stop'], {configDir: dir})).exitCode).toBe(0)
    stopped = true
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
      for (const s of own) if (text.includes(s)) leaks.push(`the operator's credential, in ${where}`)
      for (const line of [ordinary, '/v1/wallets/wal_test_[REDACTED]'])
        if (!text.includes(line)) missing.push(`${line}, in ${where}`)
    }
    expect({leaks, missing}).toEqual({leaks: [], missing: []})
    // sandbox.log is the stderr of the sandbox --detach started: a sandbox not --quiet logs each
    // request there, one line each.
    expect(logs['sandbox.log']).toMatch(/GET \/v1\/wallets\/wal_test_\[REDACTED\] 404 /)
    expect(logs['sandbox.log']).toMatch(/GET \/v1\/users\/usr_followed 404 /)
    expect(logs['the request log file']).toContain('"idempotencyKey":"order_test_[REDACTED]"')
  })
})

describe('payctl sandbox logs, against a foreground sandbox in memory', () => {
  it('reads the log of a --quiet sandbox, which writes no line on stderr', async () => {
    const sandbox = await startSandboxProcess(['--quiet'])
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
      expect(sandbox.log()).not.toContain(id)
      expect(sandbox.log()).not.toContain('wal_gone')
    } finally {
      await sandbox.stop()
    }
  })
})
