import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {runCli, tempConfigDir} from '../helpers/cli.js'
import {behindTheProxy, type CorporateNetwork, startCorporateNetwork} from '../helpers/corporate-network.js'

/**
 * `webhooks listen` behind a corporate network, as real processes: its WebSocket goes through the
 * same CONNECT proxy, NO_PROXY and PAYCTL_CA_FILE as its REST requests. The service (a name only
 * the proxy resolves) opens a listen session, takes the WebSocket upgrade, says `ready`, then ends
 * the session, so the listener stops by itself (LISTEN_SESSION_ENDED).
 */
describe('webhooks listen through a proxy, with a company CA', () => {
  const temp = tempConfigDir()
  let net: CorporateNetwork

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
    net.upgraded.length = 0
  })

  /** `webhooks listen --json`: with --exit-on-failure unless `reconnect` (a refusal must stop it anyway). */
  const listen = (baseUrl: string, env: Record<string, string | undefined>, reconnect = false) =>
    runCli(['webhooks', 'listen', '--json', ...(reconnect ? [] : ['--exit-on-failure'])], {
      configDir: temp.dir,
      env: behindTheProxy(baseUrl, env),
    })

  /** The first stdout line (`ready`) and the error the listener stopped with. */
  const outcome = (r: {stdout: string; stderr: string}) => {
    const lines = r.stdout.trim().split('\n').filter(Boolean)
    const parsed = lines.map((l) => JSON.parse(l) as {type?: string; error?: {code: string}})
    return {
      ready: parsed.find((l) => l.type === 'ready'),
      error: parsed.find((l) => l.error)?.error?.code,
    }
  }

  it('opens its WebSocket through HTTPS_PROXY (a CONNECT tunnel), trusting PAYCTL_CA_FILE', async () => {
    const r = await listen(`https://${net.serviceName}`, {
      HTTPS_PROXY: net.proxyUrl,
      PAYCTL_CA_FILE: net.caFile,
    })
    const {ready, error} = outcome(r)
    expect(ready, r.stderr + r.stdout).toMatchObject({type: 'ready', sessionId: 'lss_behind_proxy'})
    expect(error).toBe('LISTEN_SESSION_ENDED')
    expect(net.upgraded).toEqual(['/v1/webhooks/listen?ticket=tkt_behind_proxy'])
    expect(new Set(net.tunnelled)).toEqual(new Set([`CONNECT ${net.serviceName}:443`]))
  })

  it('refuses the certificate of an unknown CA, naming the problem, instead of reconnecting', async () => {
    const r = await listen(`https://${net.serviceName}`, {HTTPS_PROXY: net.proxyUrl}, true)
    expect(r.exitCode).toBe(1)
    expect(outcome(r).error).toBe('CERTIFICATE_UNTRUSTED')
    expect(net.upgraded).toEqual([])
  })

  it('connects directly to a host NO_PROXY names, and never through the proxy to this machine', async () => {
    const env = {HTTPS_PROXY: net.proxyUrl, PAYCTL_CA_FILE: net.caFile}
    // PAYCTL_PROXY_LOOPBACK=1 lets the proxy see 127.0.0.1: proof that the socket would go through it.
    const proxied = await listen(net.serviceUrl, {...env, PAYCTL_PROXY_LOOPBACK: '1'})
    expect(outcome(proxied).ready, proxied.stderr + proxied.stdout).toBeDefined()
    const port = new URL(net.serviceUrl).port
    expect(new Set(net.tunnelled)).toEqual(new Set([`CONNECT 127.0.0.1:${port}`]))
    net.tunnelled.length = 0
    const noProxy = await listen(net.serviceUrl, {...env, PAYCTL_PROXY_LOOPBACK: '1', NO_PROXY: '127.0.0.1'})
    const loopback = await listen(net.serviceUrl, {...env, HTTP_PROXY: net.proxyUrl, NO_PROXY: ''})
    for (const r of [noProxy, loopback]) expect(outcome(r).ready, r.stderr + r.stdout).toBeDefined()
    expect(net.tunnelled).toEqual([])
    expect(net.upgraded).toHaveLength(3)
  })
})
