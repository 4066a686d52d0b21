import {Validator} from '@seriousme/openapi-schema-validator'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import type {Endpoint} from '../../src/contract/api/endpoint.js'
import {endpoints} from '../../src/contract/api/endpoints.js'
import {buildOpenApiDocument} from '../../src/contract/api/openapi.js'
import {EVENT_NAMES} from '../../src/contract/events/envelope.js'
import {isEventSelector} from '../../src/contract/webhooks.js'
import {start, type TestSandbox} from './helpers.js'

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by path and checked by expect()
type Json = Record<string, any>

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument() as Json

  test('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(doc.openapi).toMatch(/^3\.1\./)
  })

  test('has every endpoint, under /v1 unless it is a sandbox control route', () => {
    const operations = Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
      Object.entries(ops as Json)
        .filter(([, op]) => !op.tags.includes('inspector'))
        .map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    )
    const expected = Object.values(endpoints).map(
      (e) =>
        `${e.method} ${'versioned' in e && e.versioned === false ? '' : '/v1'}${e.path} ${e.operationId}`,
    )
    expect(operations.sort()).toEqual(expected.sort())
  })

  test('marks the sandbox extensions, and only them, with why the sandbox serves them', () => {
    const marked = Object.values(doc.paths as Json).flatMap((ops) =>
      Object.values(ops as Json)
        .filter((op) => op['x-sandbox-extension'] === true)
        .map((op) => op.operationId),
    )
    const inspector = marked.filter((id: string) => id.startsWith('inspector'))
    expect(marked.filter((id: string) => !inspector.includes(id)).sort()).toEqual([
      'deleteSnapshot',
      'listLedgerEntries',
      'listSnapshots',
      'listUsers',
      'readSnapshotFile',
      'restoreSnapshot',
      'saveSnapshot',
      'writeSnapshotFile',
    ])
    expect(doc.paths['/v1/users'].get.description).toMatch(/^Sandbox extension: .*email/)
    // The browser inspector's routes: for its session cookie, each a sandbox extension.
    expect(inspector.length).toBeGreaterThanOrEqual(9)
    expect(doc.paths['/_sandbox/ui/api/clock/advance'].post.security).toEqual([{inspectorSession: []}])
    expect(doc.components.securitySchemes.inspectorSession).toMatchObject({type: 'apiKey', in: 'cookie'})
    const since = doc.paths['/v1/events'].get.parameters.find((p: Json) => p.name === 'since')
    expect(since.schema.description).toMatch(/^sandbox extension/)
  })

  test('lists every query field of an operation as a query parameter', () => {
    const withQuery = (Object.values(endpoints) as Endpoint[]).filter((e) => e.query !== undefined)
    expect(withQuery.map((e) => e.operationId)).toContain('listTransactions')
    for (const e of withQuery) {
      const op = doc.paths[`${e.versioned === false ? '' : '/v1'}${e.path}`][e.method.toLowerCase()]
      const params = (op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name)
      const fields = Object.keys((e.query as unknown as {shape: Record<string, unknown>}).shape)
      expect(params.sort(), e.operationId).toEqual(fields.sort())
    }
  })

  test('refers to every schema it defines', () => {
    const text = JSON.stringify({paths: doc.paths, components: {...doc.components, schemas: undefined}})
    const schemas = doc.components.schemas as Json
    const referenced = new Set<string>()
    // A schema counts once something already counted (or an operation) refers to it.
    for (let found = true; found; ) {
      found = false
      for (const name of Object.keys(schemas)) {
        const ref = `"#/components/schemas/${name}"`
        if (referenced.has(name)) continue
        if (text.includes(ref) || [...referenced].some((n) => JSON.stringify(schemas[n]).includes(ref))) {
          referenced.add(name)
          found = true
        }
      }
    }
    expect(Object.keys(schemas).filter((n) => !referenced.has(n))).toEqual([])
  })

  test('documents both success shapes of an enveloped operation', () => {
    const schema = doc.paths['/v1/wallets'].post.responses['201'].content['application/json'].schema
    expect(schema.oneOf).toHaveLength(2)
    expect(schema.oneOf[0].properties.data).toEqual({$ref: '#/components/schemas/Wallet'})
    expect(schema.oneOf[1].$ref).toBe('#/components/schemas/Wallet')
    expect(doc.paths['/v1/auth/token'].post.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/AccessToken',
    })
  })

  test('documents error responses by status with their codes and shapes', () => {
    const responses = doc.paths['/v1/wallets'].post.responses
    expect(responses['409']['x-error-codes']).toEqual(
      expect.arrayContaining(['WALLET_EXISTS', 'DUPLICATE_TRANSACTION']),
    )
    expect(responses['400']['x-error-codes']).toEqual(
      expect.arrayContaining(['INVALID_CURRENCY', 'INVALID_USER_ID']),
    )
    expect(responses['429'].headers['Retry-After']).toBeDefined()
    expect(responses['401'].content['application/json'].schema.oneOf).toEqual(
      expect.arrayContaining([
        {$ref: '#/components/schemas/AuthErrorA'},
        {$ref: '#/components/schemas/AuthErrorB'},
      ]),
    )
    const token = doc.paths['/v1/auth/token'].post.responses
    expect(token['401'].content['application/json'].schema).toEqual({$ref: '#/components/schemas/AuthErrorA'})
    expect(token['429']['x-error-codes']).toEqual(['RATE_LIMITED'])
  })

  test('documents amounts as integers, security as bearer schemes with scopes', () => {
    expect(doc.components.schemas.Balance.properties.available).toEqual({type: 'integer', 'x-bigint': true})
    // Every scheme of the API is a bearer one; the inspector's session cookie is for browsers.
    const {inspectorSession, ...api} = doc.components.securitySchemes as Record<string, Json>
    expect(Object.values(api).every((s) => s.scheme === 'bearer')).toBe(true)
    expect(inspectorSession).toMatchObject({in: 'cookie'})
    expect(doc.paths['/v1/users'].post.security).toContainEqual({accessToken: ['users:write']})
    expect(doc.paths['/_sandbox/health'].get.security).toEqual([])
    expect(doc.paths['/v1/users'].post.requestBody.content['application/json'].schema.oneOf).toHaveLength(2)
  })

  test('lists the refusals of a bad key each wallet route really answers with', () => {
    const codes = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status]['x-error-codes'] as string[]
    expect(codes('/v1/wallets', 'post', '401')).toContain('INVALID_API_KEY')
    expect(codes('/v1/wallets', 'post', '401')).not.toContain('invalid_api_key')
    expect(codes('/v1/wallets', 'post', '403')).not.toContain('insufficient_permissions')
    for (const [path, method] of [
      ['/v1/wallets', 'get'],
      ['/v1/wallets/{id}', 'get'],
      ['/v1/wallets/{id}', 'patch'],
    ]) {
      expect(codes(path!, method!, '401'), `${method} ${path}`).toContain('invalid_api_key')
      expect(codes(path!, method!, '401'), `${method} ${path}`).not.toContain('INVALID_API_KEY')
    }
  })
})

describe('the OpenAPI document says what the sandbox enforces', () => {
  const doc = buildOpenApiDocument() as Json
  const schemas = doc.components.schemas as Json
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
  })
  afterAll(() => t.close())

  test('Idempotency-Key: the header pattern and the body key accept exactly what the sandbox accepts', async () => {
    const header = doc.paths['/v1/transactions'].post.parameters.find(
      (p: Json) => p.name === 'Idempotency-Key',
    )
    const pattern = new RegExp(header.schema.pattern)
    const body = schemas.CreateTransactionRequest.properties.idempotencyKey
    expect(body).toMatchObject({minLength: 1, maxLength: 255, pattern: header.schema.pattern})
    for (const key of ['order-1', 'a b ~!', 'x'.repeat(255), 'x'.repeat(256), 'tab\there']) {
      const res = await t.post(
        '/v1/users',
        {email: 'k@example.com', first_name: 'K', last_name: 'K'},
        {headers: {'idempotency-key': key}},
      )
      expect(res.status < 300, key).toBe(pattern.test(key))
    }
    expect(pattern.test('ключ')).toBe(false)
    const empty = await t.post('/v1/transactions', {
      amount: 100,
      currency: 'USD',
      method: 'card',
      idempotencyKey: '',
    })
    expect(empty.status).toBe(400)
  })

  test('the settings update needs at least one property, as the sandbox says', async () => {
    expect(schemas.UpdateRoundupSettingsRequest.minProperties).toBe(1)
    const user = await t.user()
    const res = await t.call('PUT', `/v1/roundupsvc/users/${user}/roundups/settings`, {body: {}})
    expect(res.status).toBe(400)
  })

  test('event selectors are listed, and are exactly the ones the sandbox takes', () => {
    const selectors = schemas.WebhookRegistrationRequest.properties.events.items.enum as string[]
    expect(selectors).toEqual(expect.arrayContaining([...EVENT_NAMES, 'bnplsvc.*', 'bnplsvc.payment.*', '*']))
    for (const s of selectors) expect(isEventSelector(s), s).toBe(true)
    for (const s of ['nope', 'wallet.*.*', 'bnpl.*']) expect(isEventSelector(s)).toBe(false)
    expect(schemas.OpenListenSessionRequest.properties.events.items.enum).toEqual(selectors)
  })

  test('cursors are base64url; a cursor that is not is refused', async () => {
    const cursor = doc.paths['/v1/wallets'].get.parameters.find((p: Json) => p.name === 'cursor')
    expect(cursor.schema.pattern).toBe('^[A-Za-z0-9_-]+$')
    expect((await t.get('/v1/wallets?cursor=%2B%2F%3D')).status).toBe(400)
  })

  test('api_secret is required at token exchange', async () => {
    expect(schemas.TokenRequest.required).toContain('api_secret')
    const res = await t.post(
      '/v1/auth/token',
      {api_key: t.creds.apiKey, partner_id: t.creds.partnerId},
      {auth: null},
    )
    expect(res.status).toBe(401)
  })

  test('a body is optional exactly where a bodiless request is accepted', async () => {
    const required = (path: string, method = 'post') => doc.paths[path][method].requestBody.required
    for (const path of [
      '/v1/roundupsvc/users/{id}/roundups/transfer',
      '/v1/roundupsvc/users/{id}/roundups/enable',
      '/v1/transactions/{id}/refund',
      '/v1/walletsvc/users/{id}/cards',
    ]) {
      expect(required(path), path).toBe(false)
    }
    expect(required('/v1/users')).toBe(true)
    const user = await t.user()
    const transfer = await t.call('POST', `/v1/roundupsvc/users/${user}/roundups/transfer`)
    expect(transfer.body.error.code).toBe('NO_PENDING_ROUNDUPS')
    const users = await t.call('POST', '/v1/users')
    expect(users.body.error.message).toMatch(/body is required/)
  })

  test('a webhooks section describes every event, signed in x-service-signature', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_NAMES].sort())
    for (const name of EVENT_NAMES) {
      const op = doc.webhooks[name].post
      expect(op.parameters).toContainEqual(
        expect.objectContaining({name: 'x-service-signature', in: 'header', required: true}),
      )
      expect(op.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/EventEnvelope',
      })
    }
  })

  test('amounts that may exceed 2^53 are marked for arbitrary-precision integers', () => {
    expect(schemas.Transaction.properties.amount).toEqual({type: 'integer', 'x-bigint': true})
    expect(schemas.Balance.properties.available['x-bigint']).toBe(true)
    expect(doc.info.description).toContain('x-bigint')
  })

  test('a method a path does not have is 405 with Allow; an unknown path is 404', async () => {
    const res = await t.call('DELETE', '/v1/wallets')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST')
    expect(res.body.error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      details: {allowed: ['GET', 'HEAD', 'POST']},
    })
    const one = await t.call('PUT', '/v1/wallets/wal_x')
    expect(one.headers.get('allow')).toBe('GET, HEAD, PATCH')
    expect((await t.call('GET', '/v1/nothing-here')).status).toBe(404)
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined()
  })
})

describe('the running sandbox serves its OpenAPI document', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start()
  })
  afterAll(() => t.close())

  test('at /openapi.json, without credentials, valid, naming the address it answers at', async () => {
    const res = await fetch(`${t.sb.url}/openapi.json`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const served = (await res.json()) as Json
    const result = await new Validator().validate(served)
    expect(result.errors).toBeUndefined()
    expect(served.servers).toEqual([{url: t.sb.url, description: expect.any(String)}])
    expect(t.sb.url).not.toMatch(/:4010$/)
    // The document printed, but for its server.
    expect({...served, servers: []}).toEqual({...(buildOpenApiDocument() as Json), servers: []})
  })

  test('also beside the sandbox’s own routes, but not at a path tools do not look', async () => {
    const res = await fetch(`${t.sb.url}/_sandbox/openapi.json`)
    expect(((await res.json()) as Json).servers[0].url).toBe(t.sb.url)
    expect((await fetch(`${t.sb.url}/.well-known/openapi.json`)).status).toBe(404)
  })
})
