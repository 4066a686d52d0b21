import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {z} from 'zod'
import {
  AuthErrorASchema,
  type Endpoint,
  type ErrorStyle,
  endpoints,
  errorStyleOf,
  normaliseErrorBody,
  OverviewErrorSchema,
  ResourceErrorSchema,
} from '../../src/contract/index.js'
import {checkEveryEndpointServed} from '../../src/sandbox/http/server.js'
import {NoBodySchema} from '../../src/sandbox/http/validation.js'
import {start, type TestSandbox} from './helpers.js'

const every = Object.values(endpoints).map((endpoint) => ({endpoint}))

describe('the sandbox routes against the endpoint table', () => {
  it('refuses to start with an endpoint that has no route, or two', () => {
    expect(() => checkEveryEndpointServed(every)).not.toThrow()
    expect(() => checkEveryEndpointServed(every.filter((r) => r.endpoint !== endpoints.getWallet))).toThrow(
      'getWallet (GET /wallets/{id}) has no route',
    )
    expect(() => checkEveryEndpointServed([...every, every[0]!])).toThrow('has 2 routes')
  })
})

const table = Object.values(endpoints) as Endpoint[]
/** Refused by every body and query schema of the table: each is a strict object. */
const UNKNOWN_FIELD = {unexpected: 'yes'}

/** The issue paths, as the sandbox lists them, of what `schema` says about `value`. */
function refusedPaths(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value)
  expect(result.success).toBe(false)
  return (result.error?.issues ?? [])
    .flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys.map((k) => [...i.path, k]) : [i.path]))
    .map((path) => path.join('.'))
    .sort()
}

/** The error shape the contract gives an endpoint's refusals, by its style, in a sandbox serving envelopes. */
const SHAPES: Record<ErrorStyle, z.ZodType> = {
  'auth-a': AuthErrorASchema,
  bare: ResourceErrorSchema,
  business: OverviewErrorSchema,
}

describe("the server parses every request with its endpoint's schemas", () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
  })
  afterAll(() => t.close())

  /**
   * Path ids name nothing: the refusal comes from the table's schema before the operation looks
   * anything up. Each endpoint gets the credential it takes.
   */
  const send = (endpoint: Endpoint, options: {body?: unknown; query?: string}) => {
    const path = endpoint.path.replace(/\{\w+\}/g, 'zz_not_there')
    const url = `${endpoint.versioned === false ? '' : '/v1'}${path}${options.query ?? ''}`
    const auth =
      endpoint.auth === 'credentials' ? null : endpoint.auth === 'secret-key' ? t.creds.secretKey : undefined
    return t.call(endpoint.method, url, {body: options.body, auth})
  }

  const expectRefusal = (
    endpoint: Endpoint,
    res: {status: number; body: unknown},
    where: string,
    paths: string[],
  ) => {
    expect(res.status, endpoint.operationId).toBe(400)
    expect(SHAPES[errorStyleOf(endpoint)].safeParse(res.body).success, endpoint.operationId).toBe(true)
    const error = normaliseErrorBody(res.body)
    expect(error?.code).toBe('VALIDATION_ERROR')
    expect(error?.message).toMatch(new RegExp(`^Invalid ${where}: `))
    const issues = (error?.details?.issues ?? []) as {path: string}[]
    expect(issues.map((i) => i.path).sort(), endpoint.operationId).toEqual(paths)
  }

  const withBody = table.filter((e) => e.body !== undefined)
  it.each(withBody.map((e) => [e.operationId, e] as const))(
    '%s: a body its schema refuses is a 400 VALIDATION_ERROR listing that schema’s issues',
    async (_, endpoint) => {
      const res = await send(endpoint, {body: UNKNOWN_FIELD})
      expectRefusal(endpoint, res, 'request body', refusedPaths(endpoint.body!, UNKNOWN_FIELD))
    },
  )

  const bodiless = table.filter((e) => e.body === undefined && e.method === 'POST')
  it.each(bodiless.map((e) => [e.operationId, e] as const))(
    '%s: a POST without a body schema refuses any field',
    async (_, endpoint) => {
      const res = await send(endpoint, {body: UNKNOWN_FIELD})
      expectRefusal(endpoint, res, 'request body', refusedPaths(NoBodySchema, UNKNOWN_FIELD))
    },
  )

  const withQuery = table.filter((e) => e.query !== undefined)
  it.each(withQuery.map((e) => [e.operationId, e] as const))(
    '%s: a query its schema refuses is a 400 VALIDATION_ERROR listing that schema’s issues',
    async (_, endpoint) => {
      const res = await send(endpoint, {query: '?unexpected=yes'})
      expectRefusal(endpoint, res, 'query', refusedPaths(endpoint.query!, UNKNOWN_FIELD))
    },
  )

  it('checks every POST, PUT and PATCH, one way or the other', () => {
    const ids = (list: Endpoint[]) => list.map((e) => e.operationId).sort()
    const mutations = table.filter((e) => e.method !== 'GET' && e.method !== 'DELETE')
    expect(ids([...withBody, ...bodiless])).toEqual(ids(mutations))
    expect(ids(bodiless)).toEqual([
      'connectAccount',
      'refreshToken',
      'restoreSnapshot',
      'revokeAllTokens',
      'revokeToken',
      'sandboxFreezeClock',
      'sandboxReset',
      'sandboxResumeClock',
    ])
  })
})
