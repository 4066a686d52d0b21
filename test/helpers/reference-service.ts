import {createHmac, randomBytes} from 'node:crypto'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

/**
 * A second, independent implementation of the platform's interface, written from the interface
 * document alone and sharing no code with payctl's contract or sandbox. It answers with only what
 * the document shows: a user is `{id}`, the connect answer `{link_token}`, the process answer
 * `{roundup_amount}`, a webhook registration has no secret, revoke is a 204, and the answers the
 * document leaves "not shown" are small objects of their own or empty bodies. payctl must work
 * against it as well as against its own sandbox.
 */

export type ResponseShape = 'envelope' | 'direct'
export type ErrorShape = 'overview' | 'auth-a' | 'auth-b' | 'resource'

export interface ReferenceOptions {
  /** Variant A (overview: success/data/meta) or Variant B (the resource at top level). */
  shape?: ResponseShape
  /** The one shape every error of this instance takes. */
  errorShape?: ErrorShape
}

export interface ReferenceService {
  url: string
  credentials: {apiKey: string; apiSecret: string; partnerId: string; secretKey: string}
  /** Every request received, in order: method, path with query, and the host it came to. */
  requests: {method: string; path: string}[]
  close: () => Promise<void>
}

const CREDENTIALS = {
  apiKey: 'pk_test_reference',
  apiSecret: 'sk_test_reference_secret',
  partnerId: 'ptn_reference',
  secretKey: 'test_reference_secret_key',
}
// Shared by every instance, so that a token from an auth host works on the main host.
const SIGNING_KEY = 'reference-service-signing-key'
const SUPPORTED = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY', 'CHF', 'CNY', 'INR', 'BRL', 'MXN']
const CRYPTO = ['BTC', 'ETH', 'SOL', 'USDC', 'USDT', 'MATIC', 'AVAX', 'NEAR']
const CATEGORY: Record<number, string> = {
  400: 'validation_error',
  401: 'unauthorized',
  402: 'insufficient_funds',
  404: 'not_found',
  409: 'duplicate_wallet',
}

class Refusal {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly details: Record<string, unknown>
  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}) {
    this.status = status
    this.code = code
    this.message = message
    this.details = details
  }
}

function jwt(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const head = `${part({alg: 'HS256', typ: 'JWT'})}.${part(claims)}`
  return `${head}.${createHmac('sha256', SIGNING_KEY).update(head).digest('base64url')}`
}

function verifiedClaims(token: string): Record<string, unknown> | undefined {
  const [head, body, sig] = token.split('.')
  if (!head || !body || !sig) return undefined
  const expected = createHmac('sha256', SIGNING_KEY).update(`${head}.${body}`).digest('base64url')
  if (expected !== sig) return undefined
  return JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>
}

export async function startReferenceService(opts: ReferenceOptions = {}): Promise<ReferenceService> {
  const shape = opts.shape ?? 'envelope'
  const errorShape = opts.errorShape ?? 'overview'
  const requests: {method: string; path: string}[] = []
  const revoked = new Set<string>()
  const users = new Set<string>()
  const wallets = new Map<string, Record<string, unknown> & {balance: {available: number}}>()
  let seq = 0
  const id = (prefix: string) =>
    `${prefix}_${(++seq).toString().padStart(6, '0')}${randomBytes(3).toString('hex')}`
  const now = () => new Date().toISOString()

  function send(res: ServerResponse, status: number, data: unknown) {
    if (data === undefined) {
      res.writeHead(status).end()
      return
    }
    const meta = {requestId: `req_${randomBytes(6).toString('hex')}`, timestamp: now()}
    const body = shape === 'envelope' ? {success: true, data, meta} : data
    res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body))
  }

  function refuse(res: ServerResponse, r: Refusal) {
    const requestId = `req_${randomBytes(6).toString('hex')}`
    const error = {code: r.code, message: r.message, details: r.details}
    const body =
      errorShape === 'overview'
        ? {success: false, error, meta: {requestId, timestamp: now()}}
        : errorShape === 'auth-a'
          ? {error, request_id: requestId}
          : errorShape === 'auth-b'
            ? {
                error: {
                  code: r.code,
                  message: r.message,
                  type: r.status === 401 ? 'authentication_error' : 'api_error',
                },
              }
            : {error: CATEGORY[r.status] ?? 'api_error', message: r.message, code: r.code, details: r.details}
    res.writeHead(r.status, {'content-type': 'application/json'}).end(JSON.stringify(body))
  }

  function authenticate(req: IncomingMessage) {
    const header = req.headers.authorization
    if (!header?.startsWith('Bearer '))
      throw new Refusal(401, 'missing_authorization', 'no Authorization header')
    const bearer = header.slice('Bearer '.length)
    if (bearer === CREDENTIALS.secretKey) return bearer
    if (bearer.startsWith('test_') || bearer.startsWith('live_'))
      throw new Refusal(401, 'invalid_api_key', 'the API key is not valid')
    const claims = verifiedClaims(bearer)
    if (!claims || revoked.has(bearer))
      throw new Refusal(401, 'TOKEN_INVALID', 'the access token is not valid')
    if (typeof claims.exp === 'number' && claims.exp * 1000 < Date.now())
      throw new Refusal(401, 'TOKEN_EXPIRED', 'the access token expired', {
        expired_at: new Date(claims.exp * 1000).toISOString(),
      })
    return bearer
  }

  const token = () =>
    jwt({
      sub: CREDENTIALS.partnerId,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 604800,
      n: ++seq,
    })

  // A refreshed token lives 3 days: a client that reads `exp` can tell it from the 7-day default.
  const refreshed = () =>
    jwt({
      sub: CREDENTIALS.partnerId,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 3 * 86400,
      n: ++seq,
    })

  function wallet(body: Record<string, unknown>) {
    const userId = String(body.userId ?? '')
    const currency = String(body.currency ?? '')
    if (!users.has(userId)) throw new Refusal(400, 'INVALID_USER_ID', `user ${userId} not found`)
    if (![...SUPPORTED, ...CRYPTO].includes(currency))
      throw new Refusal(400, 'INVALID_CURRENCY', `${currency} is not supported`, {
        field: 'currency',
        value: currency,
        supported: [...SUPPORTED, ...CRYPTO],
      })
    const existing = [...wallets.values()].find((w) => w.userId === userId && w.currency === currency)
    if (existing)
      throw new Refusal(409, 'WALLET_EXISTS', 'the user already has a wallet in this currency', {
        existingWalletId: existing.id,
        userId,
        currency,
      })
    const available = typeof body.initialBalance === 'number' ? body.initialBalance : 0
    const record = {
      id: id('wal'),
      userId,
      currency,
      balance: {available, pending: 0, reserved: 0, total: available, currency},
      status: 'active',
      ...(typeof body.label === 'string' ? {label: body.label} : {}),
      limits: {daily: 2_500_000, monthly: 10_000_000, transaction: 1_000_000},
      createdAt: now(),
      updatedAt: now(),
    }
    wallets.set(record.id, record)
    return record
  }

  function transaction(body: Record<string, unknown>) {
    const amount = Number(body.amount)
    const method = String(body.method)
    if (body.currency === 'USD' && amount < 50) throw new Refusal(400, 'AMOUNT_TOO_SMALL', 'below 0.50 USD')
    const source = typeof body.sourceWalletId === 'string' ? wallets.get(body.sourceWalletId) : undefined
    if (method === 'wallet' && source && source.balance.available < amount)
      throw new Refusal(402, 'INSUFFICIENT_FUNDS', 'the source balance is too low', {
        required: amount,
        available: source.balance.available,
        currency: body.currency,
        walletId: source.id,
      })
    const asynchronous = method === 'ach' || method === 'wire'
    return {
      id: id('txn'),
      type: method === 'wallet' ? 'transfer_out' : 'deposit',
      status: asynchronous ? 'processing' : 'completed',
      amount,
      currency: body.currency,
      fee: 0,
      netAmount: amount,
      ...(body.sourceWalletId ? {sourceWalletId: body.sourceWalletId} : {}),
      ...(body.destinationWalletId ? {destinationWalletId: body.destinationWalletId} : {}),
      ...(body.paymentMethodId ? {paymentMethodId: body.paymentMethodId} : {}),
      createdAt: now(),
      completedAt: asynchronous ? null : now(),
      ...(asynchronous ? {estimatedCompletion: new Date(Date.now() + 3 * 86400_000).toISOString()} : {}),
    }
  }

  /** The routes, by method and path pattern; each returns [status, data] (data undefined: no body). */
  type Handler = (m: string[], body: Record<string, unknown>, req: IncomingMessage) => [number, unknown]
  const routes: [string, RegExp, Handler][] = [
    [
      'POST',
      /^\/auth\/token$/,
      (_m, b) => {
        const c = CREDENTIALS
        if (b.api_key !== c.apiKey || b.api_secret !== c.apiSecret || b.partner_id !== c.partnerId)
          throw new Refusal(401, 'INVALID_CREDENTIALS', 'invalid API key or secret')
        return [
          200,
          {
            access_token: token(),
            token_type: 'Bearer',
            expires_in: 604800,
            partner_id: c.partnerId,
            scopes: ['users:read', 'users:write'],
          },
        ]
      },
    ],
    [
      'POST',
      /^\/auth\/refresh$/,
      (_m, _b, req) => {
        authenticate(req)
        return [200, {access_token: refreshed()}]
      },
    ],
    [
      'POST',
      /^\/auth\/revoke$/,
      (_m, _b, req) => {
        revoked.add(authenticate(req))
        return [204, undefined]
      },
    ],
    [
      'POST',
      /^\/users$/,
      () => {
        const user = id('usr')
        users.add(user)
        return [201, {id: user}]
      },
    ],
    [
      'GET',
      /^\/users\/([^/]+)$/,
      ([, user]) => {
        if (!users.has(user!)) throw new Refusal(404, 'NOT_FOUND', `user ${user} not found`)
        return [200, {id: user}]
      },
    ],
    ['POST', /^\/wallets$/, (_m, b) => [201, wallet(b)]],
    [
      'GET',
      /^\/wallets\/([^/]+)$/,
      ([, w]) => {
        const found = wallets.get(w!)
        if (!found) throw new Refusal(404, 'NOT_FOUND', `wallet ${w} not found`)
        return [200, found]
      },
    ],
    ['POST', /^\/webhooks$/, (_m, b) => [201, {id: id('wh'), url: b.url, events: b.events}]],
    [
      'POST',
      /^\/users\/([^/]+)\/accounts\/connect$/,
      () => [200, {link_token: `link-sandbox-${randomBytes(8).toString('hex')}`}],
    ],
    [
      'PUT',
      /^\/users\/([^/]+)\/roundup-settings$/,
      (_m, b) => [
        200,
        {enabled: b.enabled, multiplier: b.multiplier, max_roundup_amount: b.max_roundup_amount},
      ],
    ],
    ['POST', /^\/transactions\/process$/, () => [200, {roundup_amount: 1.3}]],
    ['POST', /^\/transactions$/, (_m, b) => [201, transaction(b)]],
    ['POST', /^\/roundupsvc\/users\/([^/]+)\/roundups\/enable$/, () => [204, undefined]],
    ['GET', /^\/roundupsvc\/users\/([^/]+)\/roundups\/settings$/, () => [200, {enabled: true}]],
    ['PUT', /^\/roundupsvc\/users\/([^/]+)\/roundups\/settings$/, () => [200, {}]],
    ['GET', /^\/roundupsvc\/users\/([^/]+)\/roundups\/pending$/, () => [200, {}]],
    ['POST', /^\/roundupsvc\/users\/([^/]+)\/roundups\/transfer$/, () => [202, undefined]],
    ['POST', /^\/bnplsvc\/prequalify$/, () => [200, {qualified: true}]],
    ['POST', /^\/bnplsvc\/payments$/, () => [201, {id: 'bnpl_ref_1', state: 'created'}]],
    ['GET', /^\/bnplsvc\/payments\/([^/]+)$/, ([, p]) => [200, {id: p}]],
    ['GET', /^\/bnplsvc\/payments$/, () => [200, {}]],
    ['POST', /^\/bnplsvc\/payments\/([^/]+)\/cancel$/, () => [204, undefined]],
    ['POST', /^\/walletsvc\/payments\/check-eligibility$/, () => [200, {eligible: true}]],
    ['POST', /^\/walletsvc\/payments$/, () => [201, {id: 'pay_ref_1'}]],
    ['GET', /^\/walletsvc\/users\/([^/]+)\/balance$/, () => [200, {}]],
    ['POST', /^\/walletsvc\/users\/([^/]+)\/cards$/, () => [201, {}]],
    ['POST', /^\/walletsvc\/p2p\/send$/, () => [204, undefined]],
  ]

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://x')
    requests.push({method: req.method ?? '', path: `${url.pathname}${url.search}`})
    try {
      const text = Buffer.concat(chunks).toString()
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>)
      if (!url.pathname.startsWith('/v1/')) throw new Refusal(404, 'NOT_FOUND', 'no such path')
      const path = url.pathname.slice('/v1'.length)
      if (req.method === 'GET' && path === '/wallets') {
        // The SDK's wallet list, filtered by userId and currency (its path is payctl's own reading).
        authenticate(req)
        const {userId, currency} = Object.fromEntries(url.searchParams)
        const list = [...wallets.values()].filter(
          (w) => (!userId || w.userId === userId) && (!currency || w.currency === currency),
        )
        send(res, 200, {wallets: list})
        return
      }
      for (const [method, pattern, handler] of routes) {
        const m = pattern.exec(path)
        if (!m || method !== req.method) continue
        if (!path.startsWith('/auth/')) authenticate(req)
        const [status, data] = handler([...m], body, req)
        send(res, status, data)
        return
      }
      throw new Refusal(404, 'NOT_FOUND', 'no such path')
    } catch (err) {
      refuse(res, err instanceof Refusal ? err : new Refusal(500, 'INTERNAL_ERROR', String(err)))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    credentials: CREDENTIALS,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
