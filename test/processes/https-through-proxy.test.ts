import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {runCli, tempConfigDir} from '../helpers/cli.js'
import {
  behindTheProxy,
  type CorporateNetwork,
  startCorporateNetwork,
  USER,
} from '../helpers/corporate-network.js'

/**
 * payctl behind a corporate network, as real processes: a CONNECT proxy that records what it
 * tunnels, in front of an HTTPS service whose certificate a CA of the test's own signed. The
 * service is reached by a name only the proxy resolves (it tunnels to 127.0.0.1), so nothing
 * leaves this machine.
 */
describe('HTTPS through a proxy, with a company CA', () => {
  const temp = tempConfigDir()
  let net: CorporateNetwork
  const remote = () => `https://${net.serviceName}`

  beforeAll(async () => {
    net = await startCorporateNetwork()
  })
  afterAll(async () => {
    await net.close()
    temp.cleanup()
  })
  beforeEach(() => {
    net.tunnelled.length = 0
    net.served.length = 0
  })

  /** `payctl ARGS` against `baseUrl` with a test secret key, and only the network variables given. */
  const run = (args: string[], baseUrl: string, env: Record<string, string | undefined>) =>
    runCli(args, {
      configDir: temp.dir,
      env: behindTheProxy(baseUrl, env),
    })

  it('lists users through HTTPS_PROXY (a CONNECT tunnel), trusting the CA of PAYCTL_CA_FILE', async () => {
    const r = await run(['users', 'list', '--json'], remote(), {
      HTTPS_PROXY: net.proxyUrl,
      PAYCTL_CA_FILE: net.caFile,
    })
    expect(r.exitCode, r.stderr + r.stdout).toBe(0)
    expect(r.json<{users: unknown[]}>().users).toEqual([USER])
    expect(net.tunnelled).toEqual([`CONNECT ${net.serviceName}:443`])
    expect(net.served).toEqual([
      {method: 'GET', path: '/v1/users', authorization: 'Bearer test_behind_the_proxy'},
    ])
  })

  it('goes through https_proxy too, trusting a CA given by NODE_EXTRA_CA_CERTS', async () => {
    const r = await run(['users', 'list', '--json'], remote(), {
      https_proxy: net.proxyUrl,
      NODE_EXTRA_CA_CERTS: net.caFile,
    })
    expect(r.exitCode, r.stderr + r.stdout).toBe(0)
    expect(r.json<{users: unknown[]}>().users).toEqual([USER])
    expect(net.tunnelled).toEqual([`CONNECT ${net.serviceName}:443`])
  })

  it('refuses a certificate of an unknown CA, naming the problem and PAYCTL_CA_FILE', async () => {
    const r = await run(['users', 'list', '--json'], remote(), {HTTPS_PROXY: net.proxyUrl})
    expect(r.exitCode).toBe(1)
    const {error} = r.json<{error: {code: string; message: string; suggestions: string[]}}>()
    expect(error.code).toBe('CERTIFICATE_UNTRUSTED')
    expect(error.message).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE')
    expect(error.suggestions.join('\n')).toContain('set PAYCTL_CA_FILE')
    expect(net.tunnelled).toEqual([`CONNECT ${net.serviceName}:443`])
    expect(net.served).toEqual([])
  })

  it('refuses a certificate made for another host, saying so', async () => {
    const r = await run(['users', 'list', '--json'], 'https://elsewhere.payments.test', {
      HTTPS_PROXY: net.proxyUrl,
      PAYCTL_CA_FILE: net.caFile,
    })
    expect(r.exitCode).toBe(1)
    const {error} = r.json<{error: {code: string; message: string}}>()
    expect(error.code).toBe('CERTIFICATE_INVALID')
    expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID')
    expect(error.message).toContain('it names another host')
    expect(net.served).toEqual([])
  })

  it('refuses a PAYCTL_CA_FILE it cannot read, or that holds no certificate, before sending anything', async () => {
    const notPem = join(temp.dir, 'not-a-certificate.txt')
    writeFileSync(notPem, 'hello\n')
    const missing = await run(['users', 'list', '--json'], remote(), {
      HTTPS_PROXY: net.proxyUrl,
      PAYCTL_CA_FILE: join(temp.dir, 'nowhere.pem'),
    })
    const invalid = await run(['users', 'list', '--json'], remote(), {
      HTTPS_PROXY: net.proxyUrl,
      PAYCTL_CA_FILE: notPem,
    })
    expect([missing.exitCode, invalid.exitCode]).toEqual([1, 1])
    expect(missing.json<{error: {code: string}}>().error.code).toBe('CA_FILE_UNREADABLE')
    expect(invalid.json<{error: {code: string}}>().error.code).toBe('CA_FILE_INVALID')
    expect(net.tunnelled).toEqual([])
  })

  it('reaches the service directly for a host NO_PROXY names, even where loopback may be proxied', async () => {
    // PAYCTL_PROXY_LOOPBACK=1 lets the proxy see 127.0.0.1: first proof that it would, then NO_PROXY.
    const env = {HTTPS_PROXY: net.proxyUrl, PAYCTL_CA_FILE: net.caFile, PAYCTL_PROXY_LOOPBACK: '1'}
    const port = new URL(net.serviceUrl).port
    const proxied = await run(['users', 'list', '--json'], net.serviceUrl, env)
    expect(proxied.exitCode, proxied.stderr + proxied.stdout).toBe(0)
    expect(net.tunnelled).toEqual([`CONNECT 127.0.0.1:${port}`])
    net.tunnelled.length = 0
    for (const noProxy of [{NO_PROXY: '127.0.0.1'}, {no_proxy: `127.0.0.1:${port}`}]) {
      const direct = await run(['users', 'list', '--json'], net.serviceUrl, {...env, ...noProxy})
      expect(direct.exitCode, direct.stderr + direct.stdout).toBe(0)
      expect(direct.json<{users: unknown[]}>().users).toEqual([USER])
    }
    expect(net.tunnelled).toEqual([])
    expect(net.served).toHaveLength(3)
  })

  it('never lets the proxy see a request to this machine', async () => {
    const r = await run(['users', 'list', '--json'], net.serviceUrl, {
      HTTPS_PROXY: net.proxyUrl,
      HTTP_PROXY: net.proxyUrl,
      NO_PROXY: '',
      PAYCTL_CA_FILE: net.caFile,
    })
    expect(r.exitCode, r.stderr + r.stdout).toBe(0)
    expect(net.tunnelled).toEqual([])
    expect(net.served).toHaveLength(1)
  })

  it("doctor's reachability goes through the proxy, and fails with the certificate named without the CA", async () => {
    const ok = await run(['doctor'], remote(), {HTTPS_PROXY: net.proxyUrl, PAYCTL_CA_FILE: net.caFile})
    expect(ok.exitCode, ok.stderr + ok.stdout).toBe(0)
    expect(ok.stdout).toMatch(/✓ reachability: https:\/\/api\.payments\.test answered HTTP 404/)
    expect(net.tunnelled.length).toBeGreaterThan(0)
    expect(new Set(net.tunnelled)).toEqual(new Set([`CONNECT ${net.serviceName}:443`]))
    expect(net.served.map((s) => s.path)).toContain('/v1/')

    // With HTTP_PROXY alone, HTTPS goes through it too: doctor says so, and checks through it.
    net.tunnelled.length = 0
    const httpOnly = await run(['doctor'], remote(), {http_proxy: net.proxyUrl, PAYCTL_CA_FILE: net.caFile})
    expect(httpOnly.exitCode, httpOnly.stderr + httpOnly.stdout).toBe(0)
    expect(httpOnly.stdout).toContain(`${net.serviceName} is reached through ${net.proxyUrl}`)
    expect(net.tunnelled).toContain(`CONNECT ${net.serviceName}:443`)

    const refused = await run(['doctor'], remote(), {HTTPS_PROXY: net.proxyUrl})
    expect(refused.exitCode).toBe(1)
    expect(refused.stdout).toMatch(/✗ reachability: CERTIFICATE_UNTRUSTED/)
    expect(refused.stdout).toContain('PAYCTL_CA_FILE')
  })
})
