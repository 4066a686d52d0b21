import {once} from 'node:events'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {payctl} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/** An HTTP server on loopback that counts what reaches it, answering 502. */
async function countingServer() {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    req.resume()
    res.writeHead(502, {'content-type': 'application/json'}).end('{}')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('proxies', () => {
  let sandbox: LocalSandbox
  beforeAll(async () => {
    sandbox = await startLocalSandbox()
  })
  afterAll(() => sandbox.stop())

  it('sends nothing for the local sandbox through HTTP_PROXY, unless PAYCTL_PROXY_LOOPBACK=1', async () => {
    const proxy = await countingServer()
    try {
      const env = {
        HTTP_PROXY: proxy.url,
        http_proxy: proxy.url,
        HTTPS_PROXY: proxy.url,
        https_proxy: proxy.url,
        NO_PROXY: '',
        no_proxy: '',
      }
      const args = [
        'users',
        'create',
        '--email',
        'p@example.test',
        '--first-name',
        'P',
        '--last-name',
        'Roxy',
        '--json',
      ]
      const direct = await payctl(args, {configDir: sandbox.configDir, env})
      expect(direct.exitCode, direct.stderr).toBe(0)
      expect(proxy.hits()).toBe(0)
      const through = await payctl(['users', 'get', 'usr_nobody', '--json'], {
        configDir: sandbox.configDir,
        env: {...env, PAYCTL_PROXY_LOOPBACK: '1'},
        timeoutMs: 60_000,
      })
      expect(through.exitCode).not.toBe(0)
      expect(proxy.hits()).toBeGreaterThan(0)
    } finally {
      await proxy.close()
    }
  })

  it('sends nothing through a proxy for any spelling of this machine, under HTTP_PROXY and http_proxy', async () => {
    const proxy = await countingServer()
    const port = new URL(sandbox.url).port
    try {
      for (const variable of ['HTTP_PROXY', 'http_proxy']) {
        // Each spelling is a new base URL, so each run exchanges the api secret for a token anew.
        for (const host of ['0.0.0.0', '127.1', '2130706433', 'localhost.', '[::ffff:127.0.0.1]', '[::]']) {
          const run = await payctl(['users', 'get', 'usr_nobody', '--json'], {
            configDir: sandbox.configDir,
            env: {
              [variable]: proxy.url,
              NO_PROXY: '',
              no_proxy: '',
              PAYCTL_BASE_URL: `http://${host}:${port}`,
            },
            timeoutMs: 60_000,
          })
          expect(proxy.hits(), `${variable} ${host}`).toBe(0)
          // Where the spelling reaches the sandbox (IPv4), the request went through to it directly.
          if (!host.startsWith('[') && host !== 'localhost.')
            expect(run.stdout + run.stderr).toMatch(/NOT_FOUND|INVALID_USER_ID/)
        }
      }
    } finally {
      await proxy.close()
    }
  }, 120_000)

  it('doctor warns when a proxy would see a request to this machine', async () => {
    const proxy = await countingServer()
    try {
      const env = {HTTP_PROXY: proxy.url, NO_PROXY: ''}
      const direct = await payctl(['doctor', '--json'], {configDir: sandbox.configDir, env})
      const directCheck = direct.json<{checks: {name: string; status: string; detail: string}[]}>().checks
      expect(directCheck.find((c) => c.name === 'proxy')).toMatchObject({
        status: 'pass',
        detail: expect.stringMatching(/reached directly/),
      })
      const through = await payctl(['doctor', '--json'], {
        configDir: sandbox.configDir,
        env: {
          ...env,
          PAYCTL_PROXY_LOOPBACK: '1',
          PAYCTL_BASE_URL: `http://0.0.0.0:${new URL(sandbox.url).port}`,
        },
        timeoutMs: 60_000,
      })
      const check = through
        .json<{checks: {name: string; status: string; detail: string; fix?: string}[]}>()
        .checks.find((c) => c.name === 'proxy')
      expect(check?.status).toBe('warn')
      expect(check?.detail).toMatch(/through .*credentials in clear/)
      expect(check?.fix).toMatch(/PAYCTL_PROXY_LOOPBACK/)
    } finally {
      await proxy.close()
    }
  })
})
