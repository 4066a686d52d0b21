/**
 * What the sandbox's HTTP deliveries and the CLI's forwards share: reading the start of an answer
 * and saying in a few words why a request got none. Both report these in the contract's delivery
 * attempts and listen acks, so they live with the contract; this module imports nothing.
 */

/** Failure descriptions are cut to this length (they travel in acks and attempt logs). */
const DESCRIPTION_LIMIT = 500

/**
 * The first `limit` bytes of a body, as UTF-8. Leaving the loop destroys the stream, so a chatty
 * receiver cannot make the reader take in megabytes.
 */
export async function readLimited(body: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk)
    size += chunk.length
    if (size >= limit) break
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8')
}

/**
 * Why a request got no answer: the timeout, a refused or reset connection, an unknown host (found
 * on the error or its causes), or else the error's own message.
 */
export function describeRequestFailure(
  err: unknown,
  opts: {timedOut: boolean; timeoutMs: number; refused?: string},
): string {
  if (opts.timedOut) return `no answer within ${opts.timeoutMs / 1000} s`
  let e: unknown = err
  for (let i = 0; i < 4 && e; i++) {
    switch ((e as {code?: unknown}).code) {
      case 'ECONNREFUSED':
        return opts.refused ?? 'connection refused'
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'host not found'
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        return 'connection reset before an answer'
      case 'UND_ERR_CONNECT_TIMEOUT':
        return 'could not connect in time'
    }
    e = (e as {cause?: unknown}).cause
  }
  return ((err as Error)?.message ?? String(err)).slice(0, DESCRIPTION_LIMIT)
}
