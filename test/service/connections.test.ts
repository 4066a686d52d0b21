import {once} from 'node:events'
import {connect, type Socket} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {CONNECTIONS_PER_ADDRESS, HEADERS_TIMEOUT_MS} from '../../src/sandbox/http/server.js'

// A short timeout for the test to wait out; the default is HEADERS_TIMEOUT_MS.
const HEADERS_TIMEOUT = 1_000

import {start, type TestSandbox} from './helpers.js'

/** A raw TCP connection to the sandbox, from `localAddress` (a loopback address). */
async function socketTo(url: string, localAddress = '127.0.0.1') {
  const {hostname, port} = new URL(url)
  const socket = connect({host: hostname, port: Number(port), localAddress})
  let received = ''
  socket.on('data', (chunk) => {
    received += chunk.toString()
  })
  socket.on('error', () => undefined)
  const closed = once(socket, 'close').then(() => true)
  await Promise.race([once(socket, 'connect'), closed])
  return {socket, closed, received: () => received}
}

/** Whether the server has closed `closed`'s socket within `ms`. */
const closedWithin = (closed: Promise<boolean>, ms: number) =>
  Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), ms))])

describe('connections a client can hold', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off', headersTimeoutMs: HEADERS_TIMEOUT})
  })
  afterAll(() => t.close())

  it(`cuts off a client that dribbles its headers, with 408 (by default after ${HEADERS_TIMEOUT_MS / 1000} s)`, async () => {
    const slow = await socketTo(t.sb.url)
    slow.socket.write('GET /_sandbox/health HTTP/1.1\r\nHost: sandbox\r\n')
    const dribble = setInterval(() => slow.socket.write('X-Slow: 1\r\n'), 200)
    try {
      // Cut within the timeout and one check interval; generous for a busy machine.
      expect(await closedWithin(slow.closed, HEADERS_TIMEOUT + 15_000)).toBe(true)
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408/)
    } finally {
      clearInterval(dribble)
    }
  }, 40_000)

  it(`refuses a client address its ${CONNECTIONS_PER_ADDRESS + 1}th connection, but never 127.0.0.1`, async () => {
    const held: Socket[] = []
    try {
      for (let i = 0; i < CONNECTIONS_PER_ADDRESS; i++) {
        const c = await socketTo(t.sb.url, '127.0.0.2')
        held.push(c.socket)
      }
      const extra = await socketTo(t.sb.url, '127.0.0.2')
      expect(await closedWithin(extra.closed, 5_000)).toBe(true)
      expect(extra.received()).toBe('')

      // The shared local address is not counted: it still gets an answer.
      const local = await fetch(`${t.sb.url}/_sandbox/health`)
      expect(local.status).toBe(200)

      // One closed, one more fits.
      held.pop()!.destroy()
      await new Promise((r) => setTimeout(r, 200))
      const again = await socketTo(t.sb.url, '127.0.0.2')
      again.socket.write('GET /_sandbox/health HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n')
      await again.closed
      expect(again.received()).toMatch(/^HTTP\/1\.1 200/)
    } finally {
      for (const s of held) s.destroy()
    }
  })
})
