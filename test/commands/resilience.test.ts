import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor, tempConfigDir} from '../helpers/cli.js'
import {type Fault, startFaultProxy} from '../helpers/fault-proxy.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

describe('retries', () => {
  let sandbox: LocalSandbox
  let cli: Cli
  /**
   * The sandbox's commands, through a proxy at `url`; given `waits`, a retry's delay is recorded
   * there instead of waited (the schedule is what is proved, not the wall clock).
   */
  const via = (url: string, waits?: number[]) =>
    cliFor(sandbox, {
      env: {PAYCTL_BASE_URL: url},
      ...(waits ? {wait: async (ms: number) => void waits.push(ms)} : {}),
    })
  let userId: string

  beforeAll(async () => {
    sandbox = await startLocalSandbox()
    cli = cliFor(sandbox)
    const r = await cli(
      'users',
      'create',
      '--email',
      'r@example.test',
      '--first-name',
      'R',
      '--last-name',
      'S',
      '--json',
    )
    expect(r.exitCode, r.stderr).toBe(0)
    userId = r.json<{id: string}>().id
  })
  afterAll(async () => {
    await sandbox.stop()
  })

  it('retries a POST whose connection dropped after the service acted, and creates exactly one wallet', async () => {
    let dropped = false
    const proxy = await startFaultProxy(sandbox.url, (req) => {
      if (req.method === 'POST' && req.url === '/v1/wallets' && !dropped) {
        dropped = true
        return 'drop-after-forward'
      }
      return 'pass'
    })
    try {
      const r = await via(proxy.url)('wallets', 'create', '--user', userId, '--currency', 'USD', '--json')
      expect(r.exitCode, r.stderr).toBe(0)
      const posts = proxy.seen.filter((s) => s.method === 'POST' && s.path === '/v1/wallets')
      expect(posts).toHaveLength(2)
      expect(posts[0]!.idempotencyKey).toBeTruthy()
      expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey)
      const list = await cli('wallets', 'list', '--user', userId, '--currency', 'USD', '--json')
      expect(list.json<{wallets: {id: string}[]}>().wallets.map((w) => w.id)).toEqual([
        r.json<{id: string}>().id,
      ])
    } finally {
      await proxy.close()
    }
  })

  it('says in words what failed before each retry, its code after', async () => {
    const faults: Fault[] = ['drop-before', 'drop-after-forward']
    const proxy = await startFaultProxy(sandbox.url, (req) =>
      req.url?.startsWith('/v1/wallets') ? (faults.shift() ?? 'pass') : 'pass',
    )
    try {
      const r = await via(proxy.url, [])('wallets', 'list', '--user', userId)
      expect(r.exitCode, r.stderr).toBe(0)
      const retries = r.stderr.split('\n').filter((line) => line.includes('retrying'))
      expect(retries).toHaveLength(2)
      for (const line of retries)
        expect(line).toMatch(/^The connection \w[\w ]+ \([A-Z_]+\): retrying in 0\.\d s$/)
      expect(r.stderr).toContain('The connection closed before an answer (UND_ERR_SOCKET): retrying in 0.')
    } finally {
      await proxy.close()
    }
  })

  it('waits out 503s and 429 with Retry-After, then succeeds', async () => {
    const faults = [
      {status: 503, body: '{}'},
      {status: 429, headers: {'retry-after': '1'}, body: '{}'},
    ]
    const proxy = await startFaultProxy(sandbox.url, (req) =>
      req.url?.startsWith('/v1/wallets') ? (faults.shift() ?? 'pass') : 'pass',
    )
    try {
      const waits: number[] = []
      const r = await via(proxy.url, waits)('wallets', 'list', '--user', userId)
      expect(r.exitCode, r.stderr).toBe(0)
      // A backoff of 100–200 ms after the 503 (the first retry), then the 429's Retry-After of 1 s.
      expect(waits).toHaveLength(2)
      expect(waits[0]).toBeGreaterThanOrEqual(100)
      expect(waits[0]).toBeLessThanOrEqual(200)
      expect(waits[1]).toBe(1000)
      expect(r.stderr).toContain('The service answered 503 Service Unavailable: retrying in 0.')
      expect(r.stderr).toContain('The service answered 429 Too Many Requests: retrying in 1.0 s')
    } finally {
      await proxy.close()
    }
  })

  it('exits 5 when still rate limited after every retry', async () => {
    const proxy = await startFaultProxy(sandbox.url, (req) =>
      req.url?.startsWith('/v1/wallets')
        ? {
            status: 429,
            headers: {'retry-after': '0'},
            body: JSON.stringify({
              success: false,
              error: {code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: {}},
              meta: {requestId: 'req_x', timestamp: new Date().toISOString()},
            }),
          }
        : 'pass',
    )
    try {
      const waits: number[] = []
      const r = await via(proxy.url, waits)('wallets', 'list', '--json')
      expect(r.exitCode).toBe(5)
      // Three retries, each backing off about twice as long as the one before (full jitter).
      expect(waits).toHaveLength(3)
      waits.forEach((ms, attempt) => {
        expect(ms).toBeGreaterThanOrEqual(100 * 2 ** attempt)
        expect(ms).toBeLessThanOrEqual(200 * 2 ** attempt)
      })
      expect(r.json<{error: {code: string}}>().error.code).toBe('RATE_LIMIT_EXCEEDED')
    } finally {
      await proxy.close()
    }
  })

  it('says the answer was malformed instead of crashing', async () => {
    const proxy = await startFaultProxy(sandbox.url, (req) =>
      req.url?.startsWith('/v1/wallets/') ? {status: 200, body: '{"id": 42'} : 'pass',
    )
    try {
      const r = await via(proxy.url)('wallets', 'get', 'wal_x')
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toContain('INVALID_RESPONSE')
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/)
    } finally {
      await proxy.close()
    }
  })

  it('hits the sandbox’s own rate limit, then gets through after Retry-After', async () => {
    // The sandbox's clock stands still while the bucket is drained, so nothing refills it however
    // slow the machine, and moves past the window when the CLI comes back after Retry-After.
    let now = Date.now()
    const limited = await startLocalSandbox({rateLimit: 'spec', now: () => now})
    const token = (await cliFor(limited)('auth', 'token')).stdout.trim()
    // Drain the partner's bucket just before the CLI's request reaches the sandbox, so the
    // request meets a real 429 however long the CLI took to start.
    const drain = async () => {
      for (let i = 0; i < 150; i++) {
        const res = await fetch(`${limited.url}/v1/users/usr_none`, {
          headers: {authorization: `Bearer ${token}`},
        })
        if (res.status === 429) return Number(res.headers.get('retry-after'))
      }
      throw new Error('never rate limited')
    }
    let retryAfter = 0
    let lists = 0
    const proxy = await startFaultProxy(limited.url, async (req, index): Promise<Fault> => {
      if (index === 0) retryAfter = await drain()
      // The list asked again, after its 429: the window has passed.
      if (req.url?.startsWith('/v1/wallets') && lists++ > 0) now += 61_000
      return 'pass'
    })
    try {
      const waits: number[] = []
      const r = await cliFor(limited, {
        env: {PAYCTL_BASE_URL: proxy.url},
        wait: async (ms) => void waits.push(ms),
      })('wallets', 'list')
      expect(r.exitCode, r.stderr).toBe(0)
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      // It waited what the sandbox's Retry-After asked (moved on by the test, not waited).
      expect(waits[0]).toBeGreaterThanOrEqual(retryAfter * 1000)
      expect(r.stderr).toContain('The service answered 429 Too Many Requests: retrying')
      expect(proxy.seen.length).toBeGreaterThanOrEqual(2)
    } finally {
      await proxy.close()
      await limited.stop()
    }
  })

  it('tells the user to start the sandbox when nothing listens', async () => {
    const temp = tempConfigDir()
    try {
      const r = await cliFor(temp.dir, {
        env: {PAYCTL_BASE_URL: 'http://127.0.0.1:9', PAYCTL_SECRET_KEY: 'test_abcdefghijkl'},
      })('wallets', 'list')
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toContain('NETWORK_ERROR')
      // At once: a refused connection on this machine is a sandbox that is not running, not a blip.
      expect(r.stderr).toContain(
        'nothing is listening at http://127.0.0.1:9 (ECONNREFUSED): the local sandbox is not running',
      )
      expect(r.stderr).not.toMatch(/retrying/i)
      expect(r.stderr).toContain('Try: payctl sandbox start')
    } finally {
      temp.cleanup()
    }
  })
})
