import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Endpoint} from '../../src/contract/api/endpoint.js'
import {endpoints} from '../../src/contract/api/endpoints.js'
import {type Reply, start, type TestSandbox} from './helpers.js'

/**
 * Bad input: random JSON values, random objects over each endpoint's own field names, and random
 * bytes, sent to every endpoint of the contract, with real and made-up ids in the path and random
 * query strings and headers. The sandbox never answers 5xx, and every error is one of the
 * interface's error shapes with a code.
 */

const ALL = Object.values(endpoints) as Endpoint[]
// Reset deletes the records the other requests refer to: it gets its own test below.
const FUZZED = ALL.filter((ep) => ep.operationId !== 'sandboxReset')

function fieldsOf(schema: unknown): string[] {
  const def = (schema as {_zod?: {def?: Record<string, unknown>}} | undefined)?._zod?.def
  const shape =
    (schema as {shape?: Record<string, unknown>} | undefined)?.shape ??
    (def?.shape as Record<string, unknown> | undefined) ??
    ((def?.innerType ?? def?.in) as {shape?: Record<string, unknown>} | undefined)?.shape
  return shape ? Object.keys(shape) : []
}

/** The body shapes the interface documents, one of which every error must take. */
function errorShapeOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined
  const b = body as Record<string, unknown>
  const e = b.error as Record<string, unknown> | string | undefined
  const str = (v: unknown) => typeof v === 'string' && v.length > 0
  if (b.success === false && typeof e === 'object' && str(e.code) && str(e.message)) {
    const meta = b.meta as Record<string, unknown> | undefined
    if (typeof e.details === 'object' && str(meta?.requestId) && str(meta?.timestamp)) return 'overview'
  }
  if (typeof e === 'object' && e !== null && str(e.code) && str(e.message)) {
    if (str(b.request_id) && typeof e.details === 'object') return 'auth-a'
    if (str(e.type)) return 'auth-b'
  }
  if (str(e) && str(b.code) && str(b.message)) return 'resource'
  return undefined
}

function expectContractAnswer(res: Reply, what: string): void {
  const context = `${what}\n→ ${res.status} ${res.text.slice(0, 600)}`
  expect(res.status, context).toBeGreaterThanOrEqual(200)
  expect(res.status, context).toBeLessThan(500)
  expect(res.headers.get('content-type') ?? '', context).toMatch(/^application\/json/)
  if (res.status >= 400) {
    expect(errorShapeOf(res.body), context).toBeDefined()
    expect(res.text, context).not.toMatch(/at .*\.(js|ts):\d+/)
  }
}

// Values that have broken parsers and validators elsewhere.
const nasty = fc.constantFrom<unknown>(
  '',
  ' ',
  '\u0000',
  '\uFEFF',
  '\uD800',
  'é'.repeat(60),
  'x'.repeat(5000),
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '${users.alice.id}',
  '<script>',
  "' OR 1=1 --",
  -1,
  0,
  -0,
  0.5,
  1e21,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  true,
  null,
  [],
  {},
  {__proto__: {admin: true}},
  ['USD'],
  'USD',
  'usd',
  'wallet',
  'card',
  'whsec_',
  'test_',
  'live_abc',
)
const value = fc.oneof(
  {depthSize: 'small'},
  nasty,
  fc.jsonValue({maxDepth: 3}),
  fc.string({unit: 'grapheme', maxLength: 30}),
  fc.integer(),
  fc.double(),
  fc.bigInt({min: -(10n ** 30n), max: 10n ** 30n}),
)

/** Serialise with bigints as exact digits, and sometimes numbers no double can hold. */
function serialise(body: unknown): string {
  return JSON.stringify(body, (_k, v) =>
    typeof v === 'bigint' ? (JSON as unknown as {rawJSON: (t: string) => unknown}).rawJSON(v.toString()) : v,
  )
}

/** A random value as query text. An object as JSON: `String()` throws on one whose `toString` is not a function. */
function queryText(v: unknown): string {
  return typeof v === 'object' && v !== null ? serialise(v) : String(v)
}

describe('the sandbox against random request bodies', () => {
  let t: TestSandbox
  const ids: Record<string, string[]> = {}
  const requests = {count: 0}

  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    const user = await t.user()
    const other = await t.user({email: 'grace@example.com'})
    const wallet = (await t.post('/v1/wallets', {userId: user, currency: 'USD', initialBalance: 100_000}))
      .body.data.id as string
    const wallet2 = (await t.post('/v1/wallets', {userId: other, currency: 'USD', initialBalance: 100_000}))
      .body.data.id as string
    const txn = (
      await t.post('/v1/transactions', {
        method: 'wallet',
        amount: 500,
        currency: 'USD',
        sourceWalletId: wallet,
        destinationWalletId: wallet2,
      })
    ).body.data.id as string
    const hook = (await t.post('/v1/webhooks', {url: 'http://127.0.0.1:9/h', events: ['*']})).body
    const events = (await t.get('/v1/events?limit=2')).body
    const bnpl = (
      await t.post('/v1/bnplsvc/payments', {userId: user, amount: 10_000, currency: 'USD', merchantName: 'M'})
    ).body
    ids.users = [user, other]
    ids.wallets = [wallet, wallet2]
    ids.transactions = [txn]
    ids.webhooks = [(hook.data ?? hook).id]
    ids.events = ((events.data ?? events).events as {id: string}[]).map((e) => e.id)
    ids.bnplsvc = [(bnpl.data ?? bnpl).id]
    for (const [k, v] of Object.entries(ids)) expect(v.length, k).toBeGreaterThan(0)
  })
  afterAll(async () => {
    console.info(`sandbox bad-input fuzz: ${requests.count} requests to ${ALL.length} endpoints`)
    await t.close()
  })

  const idFor = (path: string, pick: number, made: string) => {
    const kind = Object.keys(ids).find((k) => path.startsWith(`/${k}`) || path.startsWith(`/walletsvc/${k}`))
    const real = ids[kind ?? (path.includes('users') ? 'users' : 'wallets')]!
    return pick % 3 === 2 ? made : real[pick % real.length]!
  }
  const madeUpId = fc.oneof(
    fc.string({maxLength: 30}),
    fc.constantFrom(
      'usr_000000000000000000000000',
      'wal_x',
      '%',
      '%zz',
      '..',
      '.',
      ' ',
      'a/b',
      '\u00e9',
      'x'.repeat(3000),
    ),
  )

  async function send(
    ep: Endpoint,
    opts: {pick: number; madeId: string; body?: string; contentType?: string; query?: string; key?: string},
  ): Promise<Reply> {
    const path = ep.path.replace(/\{(\w+)\}/g, () =>
      encodeURIComponent(idFor(ep.path, opts.pick, opts.madeId)),
    )
    const url = `${ep.versioned === false ? '' : '/v1'}${path}${opts.query ? `?${opts.query}` : ''}`
    const headers: Record<string, string> = {}
    if (opts.contentType !== undefined) headers['content-type'] = opts.contentType
    if (opts.key !== undefined) headers['idempotency-key'] = opts.key
    // Refresh and revoke take an access token; a fresh one each time, since revoke spends it.
    const auth =
      ep.auth === 'none' || ep.auth === 'credentials'
        ? null
        : ep.auth === 'token'
          ? ((await t.exchange()).body.access_token as string)
          : t.creds.secretKey
    requests.count++
    const res = await fetch(t.sb.url + url, {
      method: ep.method,
      headers: {...headers, ...(auth ? {authorization: `Bearer ${auth}`} : {})},
      body: ep.method === 'GET' ? undefined : opts.body,
    })
    const text = await res.text()
    let body: unknown
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      body = undefined
    }
    return {status: res.status, headers: res.headers, body, text}
  }

  const endpoint = fc.constantFrom(...FUZZED)
  const header = fc.record({
    contentType: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/json; charset=latin1',
      undefined,
    ),
    key: fc.option(fc.oneof(fc.stringMatching(/^[\x20-\x7e]{0,300}$/), fc.constant('fuzz-fixed-key')), {
      nil: undefined,
    }),
  })

  it('objects over each endpoint’s own fields, with random values, never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        endpoint,
        fc.nat(),
        madeUpId,
        fc.infiniteStream(value),
        fc.array(fc.string({maxLength: 12}), {maxLength: 2}),
        header,
        async (ep, pick, madeId, values, extraKeys, h) => {
          const fields = [...fieldsOf(ep.body), ...extraKeys]
          const it = values[Symbol.iterator]()
          const body: Record<string, unknown> = {}
          for (const [i, f] of fields.entries()) if ((pick >> i) % 4 !== 0) body[f] = it.next().value
          const queryFields = fieldsOf(ep.query)
          const query = new URLSearchParams(
            queryFields.map((f) => [f, queryText(it.next().value)] as [string, string]),
          ).toString()
          const text = serialise(body)
          const res = await send(ep, {pick, madeId, body: text, query, ...h})
          expectContractAnswer(res, `${ep.method} ${ep.path} ${text.slice(0, 400)}`)
        },
      ),
      {numRuns: 1200},
    )
  })

  it('any JSON value as the body never gets a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        endpoint,
        fc.nat(),
        madeUpId,
        fc.oneof(value, fc.jsonValue()),
        async (ep, pick, madeId, v) => {
          const text = serialise(v) ?? ''
          const res = await send(ep, {pick, madeId, body: text, contentType: 'application/json'})
          expectContractAnswer(res, `${ep.method} ${ep.path} ${text.slice(0, 400)}`)
        },
      ),
      {numRuns: 500},
    )
  })

  it('random bytes, and JSON-looking text that is not quite JSON, never get a 5xx', async () => {
    const broken = fc.oneof(
      fc.uint8Array({maxLength: 400}).map((b) => Buffer.from(b).toString('latin1')),
      fc.string({maxLength: 200}),
      fc.jsonValue().map((v) => {
        const s = JSON.stringify(v)
        return s.slice(0, Math.max(1, s.length - 1))
      }),
      fc.constantFrom(
        '{"amount": 1e400}',
        '{"amount": 123456789012345678901234567890123456789}',
        '{"amount": -0}',
        '{"amount": 1e999999}',
        '{"a":1,"a":2}',
        '\uFEFF{}',
        '{"__proto__": {"x": 1}}',
      ),
    )
    await fc.assert(
      fc.asyncProperty(endpoint, fc.nat(), madeUpId, broken, async (ep, pick, madeId, text) => {
        const res = await send(ep, {pick, madeId, body: text, contentType: 'application/json'})
        expectContractAnswer(res, `${ep.method} ${ep.path} ${JSON.stringify(text.slice(0, 300))}`)
      }),
      {numRuns: 500},
    )
  })

  it('any Authorization header is refused in an auth shape, never a 5xx', async () => {
    const credential = fc.oneof(
      fc.stringMatching(/^[\x21-\x7e]{0,80}$/),
      fc.constantFrom(
        'test_',
        'live_',
        'pk_test_x',
        'sk_test_x',
        'eyJ',
        'eyJ.eyJ.',
        'a.b.c.d.e',
        '....',
        'Bearer',
      ),
      fc
        .tuple(fc.jsonValue(), fc.jsonValue())
        .map(
          ([h, p]) =>
            `${Buffer.from(JSON.stringify(h)).toString('base64url')}.${Buffer.from(JSON.stringify(p)).toString('base64url')}.sig`,
        ),
    )
    const scheme = fc.constantFrom('Bearer ', 'bearer ', 'BEARER  ', 'Basic ', '', 'Bearer\t')
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FUZZED.filter((e) => e.auth !== 'none')),
        scheme,
        credential,
        async (ep, s, c) => {
          const path = ep.path.replace(/\{(\w+)\}/g, 'x')
          requests.count++
          const res = await fetch(`${t.sb.url}${ep.versioned === false ? '' : '/v1'}${path}`, {
            method: ep.method,
            headers: {authorization: `${s}${c}`, 'content-type': 'application/json'},
            body: ep.method === 'GET' ? undefined : '{}',
          })
          const text = await res.text()
          const reply = {status: res.status, headers: res.headers, body: JSON.parse(text), text}
          expectContractAnswer(reply, `${ep.method} ${ep.path} Authorization: ${JSON.stringify(s + c)}`)
          if (ep.auth !== 'credentials') expect([400, 401, 403, 404], text).toContain(res.status)
        },
      ),
      {numRuns: 400},
    )
  })

  it('deeply nested bodies are refused, not a crash', async () => {
    for (const ep of FUZZED.filter((e) => e.method !== 'GET')) {
      for (const depth of [5_000, 200_000]) {
        const text = `{"metadata": ${'['.repeat(depth)}${']'.repeat(depth)}}`
        const res = await send(ep, {
          pick: 0,
          madeId: '',
          body: text,
          contentType: 'application/json',
          key: `deep-${depth}-${ep.operationId}`,
        })
        expectContractAnswer(res, `${ep.method} ${ep.path} nested ${depth} deep`)
      }
    }
  })

  it('reset with a random body answers in the contract too', async () => {
    const reset = endpoints.sandboxReset as Endpoint
    await fc.assert(
      fc.asyncProperty(fc.oneof(value, fc.string()), async (v) => {
        const text = typeof v === 'string' ? v : serialise(v)
        expectContractAnswer(
          await send(reset, {pick: 0, madeId: '', body: text, contentType: 'application/json'}),
          text,
        )
      }),
      {numRuns: 30},
    )
  })
})
