import {createServer, request as httpRequest, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/** What the proxy does with one request. */
export type Fault =
  | 'pass' // forward and relay the answer
  | 'drop-after-forward' // forward, let the service act, then cut the client's connection with no answer
  | 'drop-before' // cut the connection without forwarding
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
    if (typeof fault === 'object') {
      res.writeHead(fault.status, {'content-type': 'application/json', ...fault.headers})
      res.end(fault.body ?? '')
      return
    }
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
