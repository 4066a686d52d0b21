import {Validator} from '@seriousme/openapi-schema-validator'
import {describe, expect, test} from 'vitest'
import {type Endpoint, endpoints} from '../../src/contract/endpoints.js'
import {buildOpenApiDocument} from '../../src/contract/openapi.js'

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
      Object.entries(ops as Json).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    )
    const expected = Object.values(endpoints).map(
      (e) =>
        `${e.method} ${'versioned' in e && e.versioned === false ? '' : '/v1'}${e.path} ${e.operationId}`,
    )
    expect(operations.sort()).toEqual(expected.sort())
  })

  test('lists every query field of an operation as a query parameter', () => {
    const withQuery = (Object.values(endpoints) as Endpoint[]).filter((e) => e.query !== undefined)
    expect(withQuery.map((e) => e.operationId)).toContain('listTransactions')
    for (const e of withQuery) {
      const op = doc.paths[`/v1${e.path}`][e.method.toLowerCase()]
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
    expect(doc.components.schemas.Balance.properties.available).toEqual({type: 'integer'})
    expect(
      Object.values(doc.components.securitySchemes as Record<string, Json>).every(
        (s) => s.scheme === 'bearer',
      ),
    ).toBe(true)
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
