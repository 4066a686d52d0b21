import type {AddressInfo} from 'node:net'
import {connect, createServer, type Server, type Socket} from 'node:net'

/** A TCP proxy (so WebSockets pass too) whose connections can be cut all at once. */
export interface TcpProxy {
  url: string
  port: number
  /** Destroy every connection open through the proxy now; new ones are still accepted. */
  cut(): number
  close(): Promise<void>
}

export async function startTcpProxy(target: string, port = 0): Promise<TcpProxy> {
  const {hostname, port: targetPort} = new URL(target)
  const open = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(Number(targetPort), hostname)
    open.add(client)
    open.add(upstream)
    const done = () => {
      open.delete(client)
      open.delete(upstream)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', done).on('close', done)
    upstream.on('error', done).on('close', done)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const bound = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    cut() {
      const n = open.size
      for (const socket of [...open]) socket.destroy()
      return n
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
