import {createHmac, timingSafeEqual} from 'node:crypto'
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/** One request the receiver got, with its exact body bytes. */
export interface Received {
  headers: IncomingHttpHeaders
  body: Buffer
  /** The parsed envelope (for assertions); verification uses `body`. */
  // biome-ignore lint/suspicious/noExplicitAny: envelopes are checked by expect(), not by types
  json: any
  receivedAt: number
  /** What the receiver answered. */
  status: number
}

export interface Receiver {
  url: string
  received: Received[]
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/**
 * An independent verifier, written from the documented scheme only (as a receiver's author would,
 * or as Stripe's libraries do for the same format): it shares no code with payctl.
 */
export function independentlyVerify(body: Buffer, header: string | undefined, secret: string): boolean {
  if (header === undefined) return false
  const pairs = header.split(',').map((p) => p.split('=') as [string, string])
  const t = pairs.find(([k]) => k === 't')?.[1]
  if (t === undefined) return false
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest()
  return pairs
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const got = Buffer.from(v, 'hex')
      return got.length === expected.length && timingSafeEqual(got, expected)
    })
}

/**
 * A webhook receiver on an ephemeral port. `respond` picks the status of each request (default
 * 200); with `secret`, a request that fails independent verification gets 401, as the spec says.
 */
export async function startReceiver(
  opts: {respond?: (r: Omit<Received, 'status'>, index: number) => number; secret?: () => string} = {},
): Promise<Receiver> {
  const received: Received[] = []
  const waiters: {count: number; resolve: () => void}[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      let json: unknown
      try {
        json = JSON.parse(body.toString('utf8'))
      } catch {
        json = undefined
      }
      const entry = {headers: req.headers, body, json, receivedAt: Date.now()}
      let status = opts.respond?.(entry, received.length) ?? 200
      const header = req.headers['x-service-signature']
      if (opts.secret !== undefined && !independentlyVerify(body, header as string, opts.secret())) {
        status = 401
      }
      received.push({...entry, status})
      res.writeHead(status, {'content-type': 'application/json'})
      res.end(status < 300 ? '{"received":true}' : `{"error":"status ${status}"}`)
      for (const w of [...waiters]) {
        if (received.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve()
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor(count, timeoutMs = 60_000) {
      if (received.length >= count) return Promise.resolve(received)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests`)),
          timeoutMs,
        )
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve(received)
          },
        })
      })
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A delivery as the API lists it, with the fault injected into it and into each attempt. */
export interface Delivery {
  injected: string | null
  status: string
  attemptLog: {injected: string | null}[]
}

/** The events processed: each verified delivery's event id, counted once (as a receiver dedupes). */
export function processedIds(received: Received[]): Set<string> {
  return new Set(received.filter((r) => r.status === 200).map((r) => r.json.id as string))
}
