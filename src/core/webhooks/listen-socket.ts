import type {Connections} from '../transport.js'

/**
 * The listen tunnel's WebSocket, connected as every request of the REST client is: through
 * HTTPS_PROXY (a CONNECT tunnel) unless NO_PROXY names the host, never through a proxy for this
 * machine (the local sandbox), and trusting PAYCTL_CA_FILE. Node's built-in WebSocket knows none of
 * that, so this is undici's, given the REST client's dispatcher; undici is loaded whole here (its
 * WebSocket needs its index), which only a listener pays for.
 */
export async function openListenSocket(url: string, connections: Connections): Promise<WebSocket> {
  const [{WebSocket: UndiciWebSocket}, dispatcher] = await Promise.all([
    import('undici'),
    connections.dispatcherFor(url),
  ])
  // undici's WebSocket is the one Node exposes as its global, of the package's own version.
  return new UndiciWebSocket(url, {dispatcher}) as unknown as WebSocket
}
