import {randomInt} from 'node:crypto'
import type {Dispatcher} from 'undici'
import {isLocalUrl} from '../contract/loopback.js'
import {PayctlError} from './errors.js'
import {redactHeaders, redactText, redactValue} from './redact.js'
import {certificateError, trustedAuthorities} from './tls-trust.js'

export interface HttpRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string | undefined
}

export interface HttpResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  durationMs: number
}

/** Told before each retry, so a front end can say what is happening. */
export interface RetryInfo {
  attempt: number
  delayMs: number
  /** What failed, as a code: `HTTP 503`, or the network error's (`UND_ERR_SOCKET`). */
  reason: string
  /** The same for a person, in words, the code after: `The connection closed before an answer (UND_ERR_SOCKET)`. */
  description: string
}

export interface TransportOptions {
  /** Per-attempt timeout for headers and body. */
  timeoutMs?: number
  /** Retries after the first attempt. */
  retries?: number
  /** Longest `Retry-After` worth waiting for; a longer one fails at once. */
  maxRetryAfterMs?: number
  /** Receives one redacted line per request and response. */
  debug?: ((line: string) => void) | undefined
  onRetry?: ((info: RetryInfo) => void) | undefined
  userAgent?: string
  /** The connection pool to use (default: one shared by the process, closed by closeTransport). */
  connections?: Connections | undefined
  /** An answer a request already got before this transport existed: see PriorAnswer. */
  prior?: PriorAnswer | undefined
  /**
   * How a retry waits out its delay (default: a timer). A test suite gives one that returns at once
   * to run a retry schedule without waiting for it; the delays still reach `onRetry` and `debug`.
   */
  wait?: ((ms: number) => Promise<void>) | undefined
}

/**
 * What one attempt of a request got, from outside this transport: the answer, or the network error
 * that stopped it (its `code`, as the transport's retries read it).
 */
export type AttemptOutcome =
  | {response: HttpResponse}
  | {error: {code: string; message: string; stack?: string | undefined}}

/** A request sent before the CLI started (by bin/run.js's fast path), and what it got. */
export interface PriorRequest {
  method: string
  url: string
  /** Its Authorization header: the answer stands only for a request with the same credential. */
  authorization: string | undefined
  outcome: AttemptOutcome
  /** Whether its --debug request lines were written already. */
  announced: boolean
}

/**
 * The answer to a request that the fast path sent and then handed over (a refusal, or a shape it
 * does not know): the first attempt of the same request takes it instead of sending the request
 * again, and goes on from there as if it had got it itself (a refused token renewed, a 503
 * retried, an error shown). Taken once.
 */
export class PriorAnswer {
  #request: PriorRequest | undefined

  constructor(request: PriorRequest) {
    this.#request = request
  }

  /** The outcome, if `req` (with its headers as sent) is the request it answers; once. */
  take(req: HttpRequest): PriorRequest | undefined {
    const prior = this.#request
    if (prior === undefined || req.body !== undefined) return undefined
    if (prior.method !== req.method || prior.url !== req.url) return undefined
    if (prior.authorization !== req.headers.authorization) return undefined
    this.#request = undefined
    return prior
  }
}

/** The --debug lines of a request about to be sent, with `headers` as they go (credentials redacted). */
export function requestDebugLines(req: HttpRequest, headers: Record<string, string>): string[] {
  return [
    `--> ${req.method} ${redactText(req.url)}`,
    `    headers ${JSON.stringify(redactHeaders(headers))}`,
    ...(req.body === undefined ? [] : [`    body ${redactBody(req.body)}`]),
  ]
}

/** The --debug lines of the answer to `req`. */
export function responseDebugLines(req: HttpRequest, res: HttpResponse): string[] {
  return [
    `<-- ${res.status} ${req.method} ${redactText(req.url)} (${res.durationMs} ms)`,
    `    headers ${JSON.stringify(redactHeaders(res.headers))}`,
    ...(res.text ? [`    body ${redactBody(res.text)}`] : []),
  ]
}

/** The headers every request carries, then its own. */
export function requestHeaders(req: HttpRequest, userAgent = 'payctl'): Record<string, string> {
  return {'user-agent': userAgent, accept: 'application/json', ...req.headers}
}

// Answers worth another attempt, with their reason phrases (a retry names them).
const RETRYABLE_STATUS: Readonly<Record<number, string>> = {
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}
// Failures worth another attempt (the connection broke or timed out), each in words for a person:
// a retry is told as what happened, the code after it.
const TRANSIENT_CODES: Readonly<Record<string, string>> = {
  ECONNRESET: 'The connection was reset',
  ECONNREFUSED: 'The connection was refused',
  EPIPE: 'The connection broke while the request was sent',
  ETIMEDOUT: 'The connection timed out',
  EAI_AGAIN: 'The host name could not be looked up for now',
  UND_ERR_SOCKET: 'The connection closed before an answer',
  UND_ERR_CLOSED: 'The connection was closed',
  UND_ERR_CONNECT_TIMEOUT: 'Connecting timed out',
  UND_ERR_HEADERS_TIMEOUT: 'No answer came in time',
  UND_ERR_BODY_TIMEOUT: 'The answer stopped coming in time',
  UND_ERR_REQ_CONTENT_LENGTH_MISMATCH: 'The request was not sent whole',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'The answer came cut short',
}

/** A retry's reason in words, its code after: `The service answered 503 Service Unavailable`. */
function retryDescription(failure: {code: string} | {status: number}): string {
  if ('status' in failure) return `The service answered ${failure.status} ${RETRYABLE_STATUS[failure.status]}`
  return `${TRANSIENT_CODES[failure.code] ?? 'The request failed'} (${failure.code})`
}

/**
 * Failures before a connection existed: the request cannot have reached the service, so sending it
 * again is safe (the fast path's first attempt reads them too).
 */
export const NOT_CONNECTED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
])

// Failures a retry will not mend: no such host, no route, a certificate refused.
const PERMANENT_CODES =
  /^(ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ECONNABORTED|EPROTO|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|ERR_SSL_)/

/** @internal undici's types are not part of the library's: undici is bundled, not installed. */
interface Dispatchers {
  /** undici's `Dispatcher.prototype.request`, called with the dispatcher as `this`. */
  request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>
  /** For every host. */
  direct: Dispatcher
  /** Through HTTP(S)_PROXY, for the hosts NO_PROXY does not exempt; absent when no proxy is set. */
  proxied: Dispatcher | undefined
  /** Whether a request to a URL skips the proxy (bypassesProxy, under the pool's environment). */
  bypasses: (url: string) => boolean
}

const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY']

/**
 * The proxy variables as the transport's proxy agent gets them: the lower-case spelling first (as
 * curl reads them), '' for none, so that the agent reads nothing of process.env itself. Where
 * `httpsProxy` is '', HTTPS requests go through `httpProxy` (undici's rule).
 */
export function proxySettings(env: NodeJS.ProcessEnv): {
  httpProxy: string
  httpsProxy: string
  noProxy: string
} {
  return {
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '',
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  }
}

/**
 * Whether a request to `url` skips the proxy: it stays on this machine (loopback or the
 * unspecified address, in any spelling; see loopback.ts). Such requests never go through a proxy
 * unless PAYCTL_PROXY_LOOPBACK=1: the local sandbox's secret key has no business travelling in
 * clear to a proxy, which NO_PROXY left unset would otherwise allow.
 */
export function bypassesProxy(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PAYCTL_PROXY_LOOPBACK !== '1' && isLocalUrl(url)
}

/**
 * A pool of kept-alive connections, shared by the transports given it. A command opens one and
 * closes it when it ends, so that its process can exit at once; commands run side by side in one
 * process (the test suite does) each close only their own.
 *
 * undici costs tens of milliseconds to load: only commands that talk to the service pay for it,
 * and they load only its Agent and request API. Its index would also load fetch, WebSocket, the
 * caches and the mocks, which payctl's client never uses: twice the code to read and compile. The
 * build checks that these modules are the very ones undici's index exports (scripts/bundle.ts).
 * EnvHttpProxyAgent keeps connections alive and honours HTTP(S)_PROXY and NO_PROXY; without a
 * proxy variable everything goes through a plain Agent, which spares every request its NO_PROXY
 * check (and the process the proxy agent's code). The proxy agent opens its HTTPS tunnels with
 * `connect()`, one of the request methods undici's index puts on every dispatcher: with a proxy,
 * they are put there as the index does, from the same module.
 *
 * PAYCTL_CA_FILE adds a company's CA to the authorities trusted, for the service's certificate and
 * for an https:// proxy's own (tls-trust.ts).
 */
export class Connections {
  #dispatchers: Promise<Dispatchers> | undefined
  readonly #env: NodeJS.ProcessEnv

  /** `env`: where the proxy variables are read (a command's own environment). */
  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env
  }

  /** The CA file added to the trusted authorities (PAYCTL_CA_FILE), if any. */
  get caFile(): string | undefined {
    return this.#env.PAYCTL_CA_FILE || undefined
  }

  /** @internal The dispatchers, loaded and created on the first request (again after a failure). */
  dispatchers(): Promise<Dispatchers> {
    this.#dispatchers ??= this.#create().catch((err: unknown) => {
      this.#dispatchers = undefined
      throw err
    })
    return this.#dispatchers
  }

  async #create(): Promise<Dispatchers> {
    const env = this.#env
    const proxied = PROXY_VARIABLES.some((name) => env[name])
    const proxies = proxySettings(env)
    const [{default: Agent}, {default: request}, proxy, ca] = await Promise.all([
      import('undici/lib/dispatcher/agent.js'),
      import('undici/lib/api/api-request.js'),
      proxied ? proxyAgent() : undefined,
      trustedAuthorities(env),
    ])
    const options = {keepAliveTimeout: 10_000, connections: 64, ...(ca === undefined ? {} : {connect: {ca}})}
    // Through a proxy: `requestTls` for the service at the tunnel's end, `proxyTls` for an https:// proxy.
    const tls = ca === undefined ? {} : {requestTls: {ca}, proxyTls: {ca}}
    return {
      request,
      direct: new Agent(options),
      proxied: proxy === undefined ? undefined : new proxy({...options, ...tls, ...proxies}),
      bypasses: (url: string) => bypassesProxy(url, env),
    }
  }

  /**
   * @internal The dispatcher a connection to `url` goes through: the proxy's, unless the URL bypasses it
   * (NO_PROXY, or this machine), else the direct one; both trust PAYCTL_CA_FILE.
   */
  async dispatcherFor(url: string): Promise<Dispatcher> {
    return routeOf(await this.dispatchers(), url)
  }

  /** Close every connection; a later request opens new ones. */
  async close(): Promise<void> {
    const pending = this.#dispatchers
    if (pending === undefined) return
    this.#dispatchers = undefined
    const d = await pending.catch(() => undefined)
    await Promise.all([d?.direct.close(), d?.proxied?.close()])
  }
}

/**
 * undici's EnvHttpProxyAgent, with the request methods its tunnels call on a dispatcher
 * (`connect`) put on undici's Dispatcher as its index puts them (scripts/bundle.ts checks both).
 */
async function proxyAgent() {
  const [{default: Dispatcher}, {default: api}, {default: EnvHttpProxyAgent}] = await Promise.all([
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/api/index.js'),
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
  ])
  Object.assign(Dispatcher.prototype, api)
  return EnvHttpProxyAgent
}

/** The pool of transports given none, as a library's callers use them. */
const shared = new Connections()

/** Exponential backoff with full jitter: 200 ms, 400 ms, 800 ms … capped at 8 s. */
export function backoffDelay(attempt: number): number {
  const ceiling = Math.min(8_000, 200 * 2 ** attempt)
  return randomInt(Math.floor(ceiling / 2), ceiling + 1)
}

function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (!v) return undefined
  const seconds = Number(v)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(v)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

function networkCode(err: unknown): {code: string; transient: boolean} | undefined {
  let e: unknown = err
  for (let i = 0; i < 4 && e; i++) {
    const code = (e as {code?: unknown}).code
    if (typeof code === 'string' && Object.hasOwn(TRANSIENT_CODES, code)) return {code, transient: true}
    if (typeof code === 'string' && PERMANENT_CODES.test(code)) return {code, transient: false}
    e = (e as {cause?: unknown}).cause
  }
  return undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Sends HTTP requests with keep-alive and retries. Only call `send` with `retry: true` for requests
 * that are safe to repeat: GETs, and mutations that carry an idempotency key.
 */
export class Transport {
  readonly #opts: Required<Omit<TransportOptions, 'debug' | 'onRetry' | 'connections' | 'prior' | 'wait'>> &
    TransportOptions

  constructor(opts: TransportOptions = {}) {
    this.#opts = {timeoutMs: 30_000, retries: 3, maxRetryAfterMs: 60_000, userAgent: 'payctl', ...opts}
  }

  async send(req: HttpRequest, {retry}: {retry: boolean}): Promise<HttpResponse> {
    const maxAttempts = retry ? this.#opts.retries + 1 : 1
    // Whether any attempt may have reached the service: not if every one failed to connect.
    let mayHaveArrived = false
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse
      try {
        res = await this.#once(req)
      } catch (err) {
        const failure = networkCode(err)
        if (!failure) throw err
        const {code} = failure
        if (!NOT_CONNECTED_CODES.has(code)) mayHaveArrived = true
        // Refused on this machine: nothing listens there, and waiting will not start it.
        const notRunning = code === 'ECONNREFUSED' && isLocalUrl(req.url)
        if (!failure.transient || notRunning || attempt + 1 >= maxAttempts) {
          throw this.#failure(req, {code, attempt, mayHaveArrived, notRunning}, err)
        }
        const delayMs = backoffDelay(attempt)
        this.#opts.onRetry?.({
          attempt: attempt + 1,
          delayMs,
          reason: code,
          description: retryDescription({code}),
        })
        this.#opts.debug?.(`retrying in ${delayMs} ms after ${code}`)
        await (this.#opts.wait ?? sleep)(delayMs)
        continue
      }
      if (!Object.hasOwn(RETRYABLE_STATUS, res.status) || attempt + 1 >= maxAttempts) return res
      const retryAfter = parseRetryAfter(res.headers['retry-after'])
      if (retryAfter !== undefined && retryAfter > this.#opts.maxRetryAfterMs) return res
      const delayMs = Math.max(retryAfter ?? 0, backoffDelay(attempt))
      const {status} = res
      this.#opts.onRetry?.({
        attempt: attempt + 1,
        delayMs,
        reason: `HTTP ${status}`,
        description: retryDescription({status}),
      })
      this.#opts.debug?.(`retrying in ${delayMs} ms after HTTP ${res.status}`)
      await (this.#opts.wait ?? sleep)(delayMs)
    }
  }

  /** The error of a request given up on after a network failure (`code`). */
  #failure(
    req: HttpRequest,
    f: {code: string; attempt: number; mayHaveArrived: boolean; notRunning: boolean},
    cause: unknown,
  ): PayctlError {
    const {code, attempt} = f
    const origin = new URL(req.url).origin
    const details = {errno: code, url: redactText(req.url), ...(f.mayHaveArrived ? {} : {sent: false})}
    const caFile = (this.#opts.connections ?? shared).caFile
    return (
      certificateError(code, origin, caFile, details, cause) ??
      new PayctlError({
        kind: 'network',
        code: 'NETWORK_ERROR',
        message: f.notRunning
          ? `nothing is listening at ${origin} (${code}): the local sandbox is not running`
          : `could not reach ${origin} (${code}${attempt > 0 ? ` after ${attempt + 1} attempts` : ''})`,
        details,
        cause,
      })
    )
  }

  async #once(req: HttpRequest): Promise<HttpResponse> {
    const {debug} = this.#opts
    const headers = requestHeaders(req, this.#opts.userAgent)
    const prior = this.#opts.prior?.take({...req, headers})
    if (debug && !prior?.announced) for (const line of requestDebugLines(req, headers)) debug(line)
    if (prior !== undefined) {
      if ('error' in prior.outcome) throw priorError(prior.outcome.error)
      if (debug) for (const line of responseDebugLines(req, prior.outcome.response)) debug(line)
      return prior.outcome.response
    }
    const started = performance.now()
    const connections = this.#opts.connections ?? shared
    const undici = await connections.dispatchers()
    const dispatcher = routeOf(undici, req.url)
    const url = new URL(req.url)
    const res = await undici.request.call(dispatcher, {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: req.method as Dispatcher.HttpMethod,
      headers,
      body: req.body,
      headersTimeout: this.#opts.timeoutMs,
      bodyTimeout: this.#opts.timeoutMs,
    })
    const text = await res.body.text()
    const durationMs = Math.round(performance.now() - started)
    const out: HttpResponse = {status: res.statusCode, headers: res.headers, text, durationMs}
    if (debug) for (const line of responseDebugLines(req, out)) debug(line)
    return out
  }
}

/** The error a prior attempt met, as it was thrown there (its stack included, for --debug). */
function priorError(e: {code: string; message: string; stack?: string | undefined}): Error {
  const error = Object.assign(new Error(e.message), {code: e.code})
  if (e.stack !== undefined) error.stack = e.stack
  return error
}

function redactBody(text: string): string {
  try {
    return JSON.stringify(redactValue(JSON.parse(text)))
  } catch {
    return redactText(text)
  }
}

/** Close the shared pool's connections, so a short-lived process can exit at once. */
export async function closeTransport(): Promise<void> {
  await shared.close()
}

/** The proxy's dispatcher for `url`, unless it bypasses the proxy (NO_PROXY, this machine); else the direct one. */
function routeOf(d: Dispatchers, url: string): Dispatcher {
  return d.proxied && !d.bypasses(url) ? d.proxied : d.direct
}
