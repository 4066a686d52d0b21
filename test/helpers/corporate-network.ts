import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer as createHttpServer, type IncomingMessage} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import {type AddressInfo, connect, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {WebSocketServer} from 'ws'

/**
 * A corporate network on this machine: a certificate authority of its own (made here with openssl,
 * as a company's is), an HTTPS service whose certificate it signed, and a CONNECT proxy in front.
 * Everything listens on 127.0.0.1, and the proxy connects only there, whatever host a client names:
 * a client can ask for `https://api.payments.test` without anything leaving the machine.
 */
export interface CorporateNetwork {
  /** The CA's certificate (PEM), as a company hands it out. */
  caFile: string
  /** The service, reached directly. */
  serviceUrl: string
  /** The service's name, as a client reaches it through the proxy (the proxy resolves it). */
  serviceName: string
  proxyUrl: string
  /** What the proxy was asked: `CONNECT host:port` for each tunnel, `GET url` for a plain request. */
  tunnelled: string[]
  /** The requests that reached the service, through the proxy or not. */
  served: {method: string; path: string; authorization: string | undefined}[]
  /** The WebSocket upgrades that reached the service (their paths): a listen tunnel's, which it ends at once. */
  upgraded: string[]
  close: () => Promise<void>
}

export const SERVICE_NAME = 'api.payments.test'

/** The one user the service lists (`GET /v1/users`, the sandbox's list in the spec's envelope). */
export const USER = {
  id: 'usr_behind_proxy',
  email: 'proxy@example.test',
  first_name: 'Pat',
  last_name: 'Roxy',
  partner_id: 'ptn_corporate',
  external_id: null,
  created_at: '2026-01-05T10:00:00.000Z',
}

/**
 * A payctl environment for `baseUrl` with a test secret key and, of the network variables (proxies,
 * NO_PROXY, NODE_EXTRA_CA_CERTS), only those in `env`: none inherited from the machine.
 */
export function behindTheProxy(
  baseUrl: string,
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const inherited = [
    'HTTPS_PROXY',
    'https_proxy',
    'HTTP_PROXY',
    'http_proxy',
    'NO_PROXY',
    'no_proxy',
    'NODE_EXTRA_CA_CERTS',
  ]
  return {
    PAYCTL_BASE_URL: baseUrl,
    PAYCTL_ENV: 'sandbox',
    PAYCTL_SECRET_KEY: 'test_behind_the_proxy',
    ...Object.fromEntries(inherited.map((name) => [name, undefined])),
    ...env,
  }
}

/** The listen session the service opens (`POST /v1/webhooks/listen-sessions`). */
const LISTEN_SESSION = {
  id: 'lss_behind_proxy',
  secret: 'whsec_behind_the_proxy',
  events: ['*'],
  resumed: false,
  pending: 0,
  socketPath: '/v1/webhooks/listen',
  ticket: 'tkt_behind_proxy',
  heartbeatSeconds: 30,
  replayWindowSeconds: 300,
  createdAt: '2026-01-05T10:00:00.000Z',
}

/** A CA, and a certificate it signs for `SERVICE_NAME`, localhost and 127.0.0.1, in `dir`. */
function makeCertificates(dir: string): {ca: string; key: string; cert: string} {
  const file = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, {cwd: dir, stdio: 'pipe'})
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Payctl Test Corporate CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  )
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${SERVICE_NAME}`,
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  )
  writeFileSync(
    file('server.ext'),
    `subjectAltName=DNS:${SERVICE_NAME},DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n`,
  )
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'server.ext',
    '-out',
    'server.pem',
  )
  return {
    ca: file('ca.pem'),
    key: readFileSync(file('server.key'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
  }
}

const listening = (server: {listen: (port: number, host: string, cb: () => void) => unknown}) =>
  new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))

/** Start the network: the service answers `GET /v1/users` (the spec's envelope) and `GET /v1/`. */
export async function startCorporateNetwork(): Promise<CorporateNetwork> {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-corporate-'))
  const {ca, key, cert} = makeCertificates(dir)
  const served: CorporateNetwork['served'] = []
  const service = createHttpsServer({key, cert}, (req, res) => {
    const path = req.url ?? '/'
    served.push({method: req.method ?? '', path, authorization: req.headers.authorization})
    const meta = {requestId: `req_${served.length}`, timestamp: new Date().toISOString()}
    const data = path.startsWith('/v1/users')
      ? {users: [USER], hasMore: false, nextCursor: null}
      : path === '/v1/webhooks/listen-sessions'
        ? LISTEN_SESSION
        : undefined
    const body = data
      ? {success: true, data, meta}
      : {success: false, error: {code: 'NOT_FOUND', message: 'no such path', details: {}}, meta}
    req.resume()
    res.writeHead(data ? 200 : 404, {'content-type': 'application/json'})
    res.end(JSON.stringify(body))
  })
  // A listen tunnel: the sandbox's handshake, its `ready` frame, then the session ended (4410).
  const upgraded: string[] = []
  const sockets = new Set<Socket>()
  const tunnels = new WebSocketServer({noServer: true})
  service.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    upgraded.push(req.url ?? '/')
    sockets.add(socket)
    tunnels.handleUpgrade(req, socket, head, (ws) => {
      const {id: sessionId, heartbeatSeconds} = LISTEN_SESSION
      ws.send(JSON.stringify({type: 'ready', sessionId, pending: 0, heartbeatSeconds}))
      setTimeout(() => ws.close(4410, 'session ended'), 100)
    })
  })
  await listening(service)
  const servicePort = (service.address() as AddressInfo).port

  const tunnelled: string[] = []
  const proxy = createHttpServer((req: IncomingMessage, res) => {
    // A plain (not tunnelled) request: recorded and refused, never forwarded.
    tunnelled.push(`${req.method} ${req.url}`)
    req.resume()
    res.writeHead(502).end()
  })
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnelled.push(`CONNECT ${req.url}`)
    // Whatever host was asked for, the tunnel ends at the service on 127.0.0.1: nothing else.
    const upstream = connect(servicePort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
      s.on('close', () => sockets.delete(s))
    }
  })
  await listening(proxy)
  const proxyPort = (proxy.address() as AddressInfo).port

  return {
    caFile: ca,
    serviceUrl: `https://127.0.0.1:${servicePort}`,
    serviceName: SERVICE_NAME,
    proxyUrl: `http://127.0.0.1:${proxyPort}`,
    tunnelled,
    served,
    upgraded,
    close: async () => {
      tunnels.close()
      for (const s of sockets) s.destroy()
      service.closeAllConnections()
      proxy.closeAllConnections()
      await Promise.all([
        new Promise<void>((resolve) => service.close(() => resolve())),
        new Promise<void>((resolve) => proxy.close(() => resolve())),
      ])
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
