import {createHash} from 'node:crypto'
import {createServer, request as httpRequest, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/** What the proxy does with one request. */
export type Fault =
  | 'pass' // forward and relay the answer
  | 'drop-after-forward' // forward, let the service act, then cut the client's connection with no answer
  | 'drop-before' // cut the connection without forwarding
  | 'truncate' // forward, relay the status and headers and part of the body, then cut the connection
  | {delayMs: number} // wait, then forward and relay the answer
  | {status: number; body?: string; headers?: Record<string, string>} // answer this instead of forwarding

export interface FaultProxy {
  url: string
  /** Every request the proxy saw, with the fault applied to it. */
  seen: {method: string; path: string; fault: Fault; idempotencyKey?: string | undefined}[]
  close: () => Promise<void>
}

/** A proxy between the CLI and the sandbox that injects faults chosen per request. */
export async function startFaultProxy(
  target: string,
  choose: (req: IncomingMessage, index: number) => Fault | Promise<Fault>,
): Promise<FaultProxy> {
  const seen: FaultProxy['seen'] = []
  const server: Server = createServer(async (req, res) => {
    const fault = await choose(req, seen.length)
    const key = req.headers['idempotency-key']
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      fault,
      idempotencyKey: Array.isArray(key) ? key[0] : key,
    })
    if (fault === 'drop-before') {
      req.socket.destroy()
      return
    }
    if (typeof fault === 'object' && 'status' in fault) {
      res.writeHead(fault.status, {'content-type': 'application/json', ...fault.headers})
      res.end(fault.body ?? '')
      return
    }
    if (typeof fault === 'object') await new Promise((r) => setTimeout(r, fault.delayMs))
    const url = new URL(req.url ?? '/', target)
    const upstream = httpRequest(
      url,
      {method: req.method, headers: {...req.headers, host: url.host}},
      (up) => {
        if (fault === 'drop-after-forward') {
          up.resume()
          up.on('end', () => req.socket.destroy())
          return
        }
        if (fault === 'truncate') {
          // The whole answer is read first, so the service has finished acting; the client gets
          // the real status and headers (Content-Length included) and then only part of the body.
          const chunks: Buffer[] = []
          up.on('data', (c: Buffer) => chunks.push(c))
          up.on('end', () => {
            const body = Buffer.concat(chunks)
            res.writeHead(up.statusCode ?? 502, up.headers)
            res.write(body.subarray(0, Math.floor(body.length / 2)), () => {
              // Give the bytes a moment to leave before the connection is cut.
              setTimeout(() => req.socket.destroy(), 5)
            })
          })
          return
        }
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      },
    )
    upstream.on('error', () => req.socket.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** How often each kind of fault is chosen, as weights (the rest of the weight passes). */
export interface FaultMix {
  pass: number
  dropBefore?: number
  dropAfterForward?: number
  truncate?: number
  delay?: number
  status502?: number
  status503?: number
  status429?: number
}

/**
 * A fault chooser driven by a seed, so a failing run can be repeated exactly: the fault a request
 * meets depends only on the seed, the request's idempotency key (or method and path, for reads)
 * and how many times that same request has been seen before — not on the order in which
 * concurrent requests happen to arrive.
 */
export function seededFaults(
  seed: string,
  mix: FaultMix,
  opts: {applies?: (req: IncomingMessage) => boolean} = {},
): (req: IncomingMessage) => Fault {
  const attempts = new Map<string, number>()
  const table: [number, (r: number) => Fault][] = [
    [mix.pass, () => 'pass'],
    [mix.dropBefore ?? 0, () => 'drop-before'],
    [mix.dropAfterForward ?? 0, () => 'drop-after-forward'],
    [mix.truncate ?? 0, () => 'truncate'],
    [mix.delay ?? 0, (r) => ({delayMs: 20 + Math.floor(r * 200)})],
    [mix.status502 ?? 0, () => ({status: 502, body: '<html>Bad Gateway</html>'})],
    [mix.status503 ?? 0, () => ({status: 503, body: ''})],
    [
      mix.status429 ?? 0,
      (r) => ({
        status: 429,
        headers: {'retry-after': r < 0.5 ? '0' : '1'},
        body: JSON.stringify({
          success: false,
          error: {code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests', details: {}},
          meta: {requestId: 'req_proxy', timestamp: new Date().toISOString()},
        }),
      }),
    ],
  ]
  const total = table.reduce((sum, [w]) => sum + w, 0)
  return (req) => {
    if (opts.applies && !opts.applies(req)) return 'pass'
    const key = req.headers['idempotency-key']
    const id = `${req.method} ${typeof key === 'string' ? key : req.url}`
    const n = attempts.get(id) ?? 0
    attempts.set(id, n + 1)
    const digest = createHash('sha256').update(`${seed}\u0000${id}\u0000${n}`).digest()
    const r1 = digest.readUInt32BE(0) / 2 ** 32
    const r2 = digest.readUInt32BE(4) / 2 ** 32
    let at = r1 * total
    for (const [weight, make] of table) {
      if (at < weight) return make(r2)
      at -= weight
    }
    return 'pass'
  }
}

/** The seed for a randomised run: PAYCTL_FAULT_SEED to repeat one, else a fresh one. */
export function faultSeed(): string {
  return process.env.PAYCTL_FAULT_SEED ?? Math.random().toString(36).slice(2, 10)
}
