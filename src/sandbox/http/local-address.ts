import type {FastifyRequest} from 'fastify'
import {isLoopbackHost} from '../../contract/loopback.js'

/**
 * The sandbox's base address as this request reached it: the address and port of the socket's
 * own end, never the Host header a client may write anything into. For a sandbox bound to
 * 127.0.0.1 it is its URL; bound to the unspecified address, the one address this client used.
 */
export function ownUrlOf(request: FastifyRequest): string {
  const {localAddress, localPort} = request.socket
  const address = unmapped(localAddress ?? '127.0.0.1')
  return `http://${address.includes(':') ? `[${address}]` : address}:${localPort}`
}

/** Whether a socket's remote address is this machine's loopback (127.0.0.0/8, ::1, and IPv4 mapped into IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined || address === '') return false
  return isLoopbackHost(unmapped(address))
}

/** Whether the request came from this machine: by its socket, which no header can change. */
export function fromLoopback(request: FastifyRequest): boolean {
  return isLoopbackAddress(request.socket.remoteAddress)
}

/** An IPv4 address mapped into IPv6 (`::ffff:127.0.0.1`) as the IPv4 address it is. */
function unmapped(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.)/, '')
}
