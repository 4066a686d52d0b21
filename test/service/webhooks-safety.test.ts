import {once} from 'node:events'
import {createServer, type Server} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {DatabaseSync} from 'node:sqlite'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {checkedLookup, refusedAddress} from '../../src/sandbox/webhooks/url-policy.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'
import {sleep, start, type TestSandbox, tempDir} from './helpers.js'

// Names under .embedded.test resolve to the IPv6 address their first label spells (dashes for
// colons), as a hostile DNS answer would: the check of resolved addresses is tested without a
// resolver that answers so. Every other name resolves as usual.
vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns')>()
  const lookup = (hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    if (!hostname.endsWith('.embedded.test')) return dns.lookup(hostname, options, callback)
    const address = hostname.split('.')[0]!.replaceAll('-', ':')
    callback(null, [{address, family: 6}])
  }
  return {...dns, lookup}
})

/** An HTTP server on loopback that answers every request with `status` and `body`, or never. */
async function server(
  answer: {status: number; body: string} | 'never',
): Promise<{url: string; hits: () => number; close: () => Promise<void>}> {
  const sockets = new Set<Socket>()
  let hits = 0
  const s: Server = createServer((req, res) => {
    hits++
    req.resume()
    if (answer === 'never') return
    res.writeHead(answer.status, {'content-type': 'text/plain'}).end(answer.body)
  })
  s.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  s.listen(0, '127.0.0.1')
  await once(s, 'listening')
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/hooks`,
    hits: () => hits,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      s.close()
      await once(s, 'close')
    },
  }
}

const refusal = (res: {status: number; body: {error?: {details?: {issues?: {code: string}[]}}}}) =>
  res.status === 201 ? 'accepted' : (res.body.error?.details?.issues?.[0]?.code ?? `HTTP ${res.status}`)

/**
 * Try to register `url`; a registration that gets through is deleted at once, before any event
 * could be delivered to it: these tests name addresses off this machine only to see them refused.
 */
async function tryRegister(sb: TestSandbox, url: string, events: string[] = ['*']) {
  const res = await sb.post('/v1/webhooks', {url, events})
  if (res.status === 201) await sb.call('DELETE', `/v1/webhooks/${res.body.data.id}`)
  return res
}

describe('where webhook deliveries may go', () => {
  let local: TestSandbox
  let exposed: TestSandbox
  beforeAll(async () => {
    local = await start({rateLimit: 'off'})
    exposed = await start({rateLimit: 'off', host: '0.0.0.0'})
  })
  afterAll(async () => {
    await local.close()
    await exposed.close()
  })

  it('refuses link-local and cloud metadata receivers in every spelling of their address', async () => {
    const metadata = [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/', // decimal
      'http://0xa9fea9fe/', // hex
      'http://0251.0376.0251.0376/', // octal
      'http://169.254.43518/', // short form
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://[::ffff:169.254.169.254]/', // IPv4-mapped IPv6
      'http://[::ffff:a9fe:a9fe]/',
      'http://[64:ff9b::a9fe:a9fe]/', // NAT64
      'http://[fe80::1]/',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'http://168.63.129.16/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://224.0.0.1/',
    ]
    for (const sb of [local, exposed]) {
      for (const url of metadata) {
        expect(refusal(await tryRegister(sb, url)), url).toBe('url_not_allowed')
      }
    }
    // This machine and private networks are what local development delivers to.
    for (const url of ['http://127.0.0.1:9/', 'http://localhost:9/', 'http://10.0.0.1/', 'http://[::1]:9/']) {
      expect(refusal(await tryRegister(local, url)), url).toBe('accepted')
    }
  })

  it('refuses every IPv6 form of a metadata or link-local IPv4 address, with the validation error', async () => {
    // Each stands for 169.254.169.254: registering one must fail before anything is delivered.
    const forms = [
      '[::ffff:0:a9fe:a9fe]', // IPv4-translated
      '[::ffff:0:169.254.169.254]',
      '[::169.254.169.254]', // IPv4-compatible
      '[2002:a9fe:a9fe::1]', // 6to4
      '[2002:a9fe:a9fe:1:2:3:4:5]',
      '[64:ff9b::169.254.169.254]', // NAT64, well-known prefix
      '[64:ff9b:1::a9fe:a9fe]', // NAT64, local-use prefix, as a /96
      '[64:ff9b:1:0:a9:fea9:fe00:0]', // … as a /64
      '[64:ff9b:1:a9:fe:a9fe::]', // … as a /56
      '[64:ff9b:1:a9fe:a9:fe00::]', // … as a /48
      '[2001:0:a9fe:a9fe:8000:f227:a247:2701]', // Teredo: the server
      '[2001:0:4136:e378:8000:63bf:5601:5601]', // Teredo: the client (bits inverted)
    ]
    for (const sb of [local, exposed]) {
      for (const form of forms) {
        const url = `http://${form}/latest/meta-data/`
        const res = await tryRegister(sb, url, ['wallet.created'])
        expect(res.status, url).toBe(400)
        expect(res.body.error, url).toMatchObject({
          code: 'VALIDATION_ERROR',
          message: expect.stringContaining('169.254.169.254'),
          details: {field: 'url', issues: [{path: 'url', code: 'url_not_allowed'}]},
        })
      }
    }
    expect((await local.get('/v1/webhooks')).body.data.webhooks).not.toContainEqual(
      expect.objectContaining({url: expect.stringContaining('meta-data')}),
    )
  })

  it('refuses IPv6 forms of this machine and private networks when the sandbox listens beyond loopback', async () => {
    const inside = [
      'http://[::ffff:0:7f00:1]:9/', // IPv4-translated 127.0.0.1
      'http://[2002:7f00:1::]:9/', // 6to4 127.0.0.1
      'http://[2002:c0a8:101::1]/', // 6to4 192.168.1.1
      'http://[64:ff9b:1::a00:1]/', // local-use NAT64 10.0.0.1
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:9/', // Teredo client 127.0.0.1
      'http://[2001:0:c0a8:101::]/', // Teredo server 192.168.1.1
    ]
    for (const url of inside) {
      const res = await tryRegister(exposed, url, ['wallet.created'])
      expect(res.status, url).toBe(400)
      expect(refusal(res), url).toBe('url_not_allowed')
    }
    // Public IPv4 addresses behind the same forms are anyone's receivers.
    for (const address of [
      '2002:5db8:d822::1', // 6to4 93.184.216.34
      '2001:0:4136:e378:8000:63bf:a247:27dd', // Teredo, server and client public
      '64:ff9b::5db8:d822',
      '::ffff:0:5db8:d822',
    ]) {
      expect(refusedAddress(address, {exposed: true}), address).toBeUndefined()
    }
  })

  it('refuses a name that resolves to an IPv6 form of a metadata address when it connects', async () => {
    for (const address of [
      '2002-a9fe-a9fe--1',
      '--ffff-0-a9fe-a9fe',
      '64-ff9b-1--a9fe-a9fe',
      '2001-0-a9fe-a9fe--1',
    ]) {
      const err = await new Promise<Error | null>((resolve) =>
        checkedLookup({exposed: false})(`${address}.embedded.test`, {all: true}, (e) => resolve(e)),
      )
      expect(err?.message, address).toMatch(
        /resolves to .*169\.254\.169\.254, a link-local, multicast or cloud metadata address/,
      )
    }
  })

  it('refuses loopback and private receivers when the sandbox listens beyond loopback', async () => {
    const inside = [
      'http://127.0.0.1:9/',
      'http://2130706433:9/', // 127.0.0.1 in decimal
      'http://0x7f.1:9/',
      'http://localhost:9/',
      'http://api.localhost:9/',
      'http://localhost.:9/',
      'http://[::1]:9/',
      'http://[::ffff:127.0.0.1]:9/',
      'http://[::ffff:7f00:1]:9/',
      'http://0.0.0.0:9/',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://[fd12:3456::1]/',
    ]
    for (const url of inside) {
      expect(refusal(await tryRegister(exposed, url)), url).toBe('url_not_allowed')
    }
    expect(refusal(await tryRegister(exposed, 'https://hooks.example.test/in'))).toBe('accepted')
  })

  it('refuses a name that resolves to a forbidden address when it connects', async () => {
    const lookup = checkedLookup({exposed: true})
    const result = await new Promise<{err: Error | null}>((resolve) =>
      lookup('localhost', {all: true}, (err) => resolve({err})),
    )
    expect(result.err?.message).toMatch(/localhost resolves to .* loopback or private address/)
    const allowed = await new Promise<{err: Error | null}>((resolve) =>
      checkedLookup({exposed: false})('localhost', {}, (err) => resolve({err})),
    )
    expect(allowed.err).toBeNull()
    expect(refusedAddress('::ffff:169.254.169.254', {exposed: false})).toMatch(/metadata/)
  })

  it('never stores or shows the credentials of a URL', async () => {
    const res = await local.post('/v1/webhooks', {
      url: 'http://alice:hunter2@127.0.0.1:9/hooks',
      events: ['*'],
    })
    expect(refusal(res)).toBe('url_credentials')
    expect(res.text).not.toContain('hunter2')
    const list = await local.get('/v1/webhooks')
    expect(list.text).not.toContain('hunter2')
  })

  it('does not show the credentials of a registration stored before they were refused', async () => {
    const {file, cleanup} = tempDir()
    const sb = await start({data: file, rateLimit: 'off'})
    try {
      const created = await sb.post('/v1/webhooks', {url: 'http://127.0.0.1:9/hooks', events: ['*']})
      const db = new DatabaseSync(file)
      db.prepare('UPDATE webhook_endpoints SET url = ? WHERE id = ?').run(
        'http://alice:hunter2@127.0.0.1:9/hooks',
        created.body.data.id,
      )
      db.close()
      const list = await sb.get('/v1/webhooks')
      expect(list.body.data.webhooks[0].url).toBe('http://127.0.0.1:9/hooks')
      expect((await sb.get(`/v1/webhooks/${created.body.data.id}`)).text).not.toContain('hunter2')
    } finally {
      await sb.close()
      cleanup()
    }
  })

  it('checks the receiver again at delivery: one registered before the sandbox was exposed gets nothing', async () => {
    const {file, cleanup} = tempDir()
    const receiver: Receiver = await startReceiver()
    try {
      const before = await start({data: file, rateLimit: 'off', webhookRetries: 'fast'})
      await before.post('/v1/webhooks', {url: receiver.url, events: ['wallet.created']})
      await before.close()
      const after = await start({data: file, rateLimit: 'off', webhookRetries: 'fast', host: '0.0.0.0'})
      try {
        const fired = await after.post('/_sandbox/trigger', {event: 'wallet.created'})
        const id = fired.body.event.id as string
        let delivery: {attempts: number; attemptLog: {error: string | null}[]} | undefined
        for (let i = 0; i < 100 && !(delivery?.attempts ?? 0); i++) {
          await sleep(100)
          delivery = (await after.get(`/v1/events/${id}`)).body.data.deliveries[0]
        }
        expect(delivery?.attemptLog[0]?.error).toMatch(
          /^refused: 127\.0\.0\.1 is a loopback or private address/,
        )
        expect(receiver.received).toHaveLength(0)
      } finally {
        await after.close()
      }
    } finally {
      await receiver.close()
      cleanup()
    }
  })

  it('keeps 256 bytes of an answer that is not a 2xx, 2 KiB of one that is', async () => {
    const sb = await start({rateLimit: 'off', webhookRetries: 'fast'})
    const failing = await server({status: 500, body: 'x'.repeat(4000)})
    const ok = await server({status: 200, body: 'y'.repeat(4000)})
    try {
      await sb.post('/v1/webhooks', {url: failing.url, events: ['wallet.created']})
      await sb.post('/v1/webhooks', {url: ok.url, events: ['wallet.created']})
      const id = (await sb.post('/_sandbox/trigger', {event: 'wallet.created'})).body.event.id as string
      let log: {url: string; attemptLog: {responseBody: string | null; status: number | null}[]}[] = []
      for (let i = 0; i < 100 && !(log.length === 2 && log.every((d) => d.attemptLog.length > 0)); i++) {
        await sleep(100)
        log = (await sb.get(`/v1/events/${id}`)).body.data.deliveries
      }
      const bodyOf = (url: string) => log.find((d) => d.url === url)?.attemptLog[0]?.responseBody
      expect(bodyOf(failing.url)).toBe('x'.repeat(256))
      expect(bodyOf(ok.url)).toBe('y'.repeat(2048))
    } finally {
      await sb.close()
      await failing.close()
      await ok.close()
    }
  })
})

describe('fair webhook delivery', () => {
  it("many registrations to a receiver that never answers do not delay another receiver's first event", async () => {
    const sb = await start({rateLimit: 'off', webhookRetries: 'fast'})
    const blackHole = await server('never')
    const receiver = await startReceiver()
    try {
      for (let i = 0; i < 40; i++) {
        const res = await sb.post('/v1/webhooks', {url: blackHole.url, events: ['*']})
        expect(res.status).toBe(201)
      }
      const stuck: string[] = []
      for (let i = 0; i < 2; i++) {
        stuck.push((await sb.post('/_sandbox/trigger', {event: 'wallet.created'})).body.event.id as string)
      }
      // The black hole now holds every slot it may get, and keeps it for the delivery timeout (10 s).
      for (let i = 0; i < 100 && blackHole.hits() === 0; i++) await sleep(50)
      await sb.post('/v1/webhooks', {url: receiver.url, events: ['wallet.created']})
      await sb.post('/_sandbox/trigger', {event: 'wallet.created'})
      await receiver.waitFor(1, 30_000)
      // No slot of the black hole has come free yet (none of its attempts has ended), so the event
      // did not wait for one: it went out beside them.
      for (const id of stuck) {
        const deliveries = (await sb.get(`/v1/events/${id}`)).body.data.deliveries as {attempts: number}[]
        expect(deliveries).toHaveLength(40)
        expect(deliveries.every((d) => d.attempts === 0)).toBe(true)
      }
      expect(blackHole.hits()).toBeLessThanOrEqual(8)
    } finally {
      await sb.close()
      await blackHole.close()
      await receiver.close()
    }
  })
})
