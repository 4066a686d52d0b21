import {request} from 'node:http'
// The fast path imports the transport already (its --debug lines): the list adds no module to it.
import {type AttemptOutcome, type HttpRequest, type HttpResponse, NOT_CONNECTED_CODES} from './transport.js'

/** What one attempt got; `sent: false` when it failed before reaching the service. */
export type FirstAttempt = AttemptOutcome & {sent: boolean}

/**
 * Send one plain-HTTP request with node:http, once, without retries, and say what came back: the
 * answer shaped as the transport's (its headers as undici reads them, its body decoded as undici
 * decodes it), or the error that stopped it. The fast path of bin/run.js sends its one GET this way
 * before oclif loads: node:http is part of Node already, where undici's client is not. What to do
 * with the outcome (keep it, or hand it to the transport as a PriorAnswer) is the caller's.
 * `headers` are all the request's headers (see requestHeaders). `onSent` is called once the
 * request is written whole to the connection, which is when the service starts on it: work done
 * then overlaps the service's.
 */
export function firstAttempt(
  req: HttpRequest,
  headers: Record<string, string>,
  {timeoutMs = 30_000, onSent}: {timeoutMs?: number; onSent?: () => void} = {},
): Promise<FirstAttempt> {
  // Not performance.now(), whose first use loads Node's performance timeline.
  const started = process.hrtime.bigint()
  return new Promise((resolve) => {
    let settled = false
    let answered = false
    const done = (outcome: FirstAttempt) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const failed = (err: NodeJS.ErrnoException) => {
      // undici's names for a connection that broke, or an answer that never came whole.
      const code = typeof err.code === 'string' ? err.code : 'UND_ERR_SOCKET'
      done({error: {code, message: err.message, stack: err.stack}, sent: !NOT_CONNECTED_CODES.has(code)})
    }
    // One connection of its own, closed after the answer, so the process can end at once; asked
    // for as undici asks, kept alive, since the service's answer (its headers) may say so.
    const outgoing = request(req.url, {
      method: req.method,
      headers: {...headers, connection: 'keep-alive'},
      agent: false,
    })
    const timer = setTimeout(() => {
      outgoing.destroy()
      const code = answered ? 'UND_ERR_BODY_TIMEOUT' : 'UND_ERR_HEADERS_TIMEOUT'
      done({error: {code, message: `${answered ? 'Body' : 'Headers'} Timeout Error`}, sent: true})
    }, timeoutMs)
    outgoing.on('error', failed)
    if (onSent !== undefined) outgoing.once('finish', onSent)
    outgoing.on('response', (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', failed)
      res.on('aborted', () => failed(Object.assign(new Error('other side closed'), {code: 'UND_ERR_SOCKET'})))
      res.on('end', () => {
        const response: HttpResponse = {
          status: res.statusCode ?? 0,
          headers: headersAsUndici(res.rawHeaders),
          text: decodeAsUndici(Buffer.concat(chunks)),
          durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        }
        done({response, sent: true})
      })
    })
    outgoing.end(req.body)
  })
}

/** Header names in lower case; a header that comes more than once, an array of its values. */
function headersAsUndici(raw: string[]): HttpResponse['headers'] {
  const headers: Record<string, string | string[]> = Object.create(null)
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    const value = raw[i + 1]!
    const seen = headers[name]
    if (seen === undefined) headers[name] = value
    else if (Array.isArray(seen)) seen.push(value)
    else headers[name] = [seen, value]
  }
  // As a plain object: the transport and --debug read it as undici's.
  return {...headers}
}

/** UTF-8, a leading byte-order mark skipped. */
function decodeAsUndici(body: Buffer): string {
  const bom = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf
  return body.toString('utf8', bom ? 3 : 0)
}
