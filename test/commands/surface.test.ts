import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {closeTransport, PayctlClient, PayctlError, type ResolvedProfile} from '../../src/core/index.js'

/**
 * What the client requires of a service's answers: what the interface document shows, and no more.
 * A real server on an ephemeral loopback port answers each request with the body the test set.
 */

let server: Server
let url: string
let answer: {status: number; body: string} = {status: 200, body: '{}'}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(answer.status, answer.body ? {'content-type': 'application/json'} : {}).end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await closeTransport()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

function client(auth: ResolvedProfile['auth'] = {variant: 'B', secretKey: 'test_surface_key_0123'}) {
  const profile: ResolvedProfile = {
    name: 't',
    environment: 'local',
    kind: 'local',
    baseUrl: url,
    auth,
    stored: false,
    sources: {profile: 'flag', environment: 'flag', baseUrl: 'flag', authUrl: 'flag', credentials: 'flag'},
  }
  return new PayctlClient({profile})
}

const wallet = {
  id: 'wal_1',
  userId: 'usr_1',
  currency: 'USD',
  balance: {available: 100, pending: 0, reserved: 0, total: 100, currency: 'USD'},
  status: 'active',
  limits: {daily: 1, monthly: 1, transaction: 1},
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
}

async function failure(work: Promise<unknown>): Promise<PayctlError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(PayctlError)
  return err as PayctlError
}

describe('answers checked against the service surface', () => {
  it('keeps every field of the answer, known or not, in either response shape', async () => {
    const extra = {...wallet, nickname: 'holiday', balance: {...wallet.balance, frozen: 3}}
    answer = {status: 200, body: JSON.stringify(extra)}
    expect(await client().call('getWallet', {params: {id: 'wal_1'}})).toEqual(extra)
    answer = {
      status: 200,
      body: JSON.stringify({success: true, data: extra, meta: {requestId: 'r', timestamp: 't'}}),
    }
    expect(await client().call('getWallet', {params: {id: 'wal_1'}})).toEqual(extra)
  })

  it('takes a user that is only an id, and a user in the SDK camelCase form', async () => {
    answer = {status: 201, body: '{"id":"usr_9"}'}
    expect(
      await client().call('createUser', {body: {email: 'a@b.test', first_name: 'A', last_name: 'B'}}),
    ).toEqual({
      id: 'usr_9',
    })
    answer = {status: 200, body: '{"id":"usr_9","firstName":"Ada","createdAt":1700000000}'}
    expect(await client().call('getUser', {params: {id: 'usr_9'}})).toEqual({
      id: 'usr_9',
      firstName: 'Ada',
      createdAt: 1700000000,
    })
  })

  it('refuses a field the document shows when it has another type, naming it', async () => {
    answer = {status: 200, body: JSON.stringify({...wallet, balance: {...wallet.balance, available: '100'}})}
    const err = await failure(client().call('getWallet', {params: {id: 'wal_1'}}))
    expect(err.code).toBe('INVALID_RESPONSE')
    expect(err.message).toMatch(/balance\.available/)
    answer = {status: 200, body: JSON.stringify({id: 'wal_1'})}
    expect((await failure(client().call('getWallet', {params: {id: 'wal_1'}}))).message).toMatch(/userId/)
    answer = {status: 201, body: '{"email":"a@b.test"}'}
    const user = await failure(
      client().call('createUser', {body: {email: 'a@b.test', first_name: 'A', last_name: 'B'}}),
    )
    expect(user.message).toMatch(/→ at id/)
  })

  it('reads an empty 2xx or 204 as an empty record where the document shows no answer, and only there', async () => {
    answer = {status: 204, body: ''}
    expect(await client().call('cancelBnplPayment', {params: {id: 'bnpl_1'}, body: {}})).toEqual({})
    expect(await client().call('transferRoundups', {params: {id: 'usr_1'}})).toEqual({})
    answer = {status: 200, body: ''}
    expect(await client().call('createCard', {params: {id: 'usr_1'}, body: {}})).toEqual({})
    answer = {status: 201, body: ''}
    const err = await failure(
      client().call('createUser', {body: {email: 'a@b.test', first_name: 'A', last_name: 'B'}}),
    )
    expect(err.message).toMatch(/empty body/)
  })

  it('accepts the link token in either spelling, and nothing without one', async () => {
    answer = {status: 200, body: '{"link_token":"lt_1"}'}
    expect(await client().call('connectAccount', {params: {id: 'usr_1'}})).toEqual({link_token: 'lt_1'})
    answer = {status: 200, body: '{"linkToken":"lt_2"}'}
    expect(await client().call('connectAccount', {params: {id: 'usr_1'}})).toEqual({linkToken: 'lt_2'})
    answer = {status: 200, body: '{"token":"lt_3"}'}
    expect((await failure(client().call('connectAccount', {params: {id: 'usr_1'}}))).message).toMatch(
      /link token/,
    )
  })
})

describe('tokens from a service that says little', () => {
  const partner = {variant: 'A', apiKey: 'pk_test_k', apiSecret: 'sk_test_s', partnerId: 'ptn_1'} as const
  const exchanged = JSON.stringify({
    access_token: 'first-token',
    token_type: 'Bearer',
    expires_in: 60,
    partner_id: 'ptn_1',
    scopes: ['users:read'],
  })

  it('gives a refreshed token with no expiry and no claims the documented 7 days, keeping its scopes', async () => {
    const c = client(partner)
    answer = {status: 200, body: exchanged}
    await c.tokens.bearer()
    answer = {status: 200, body: '{"access_token":"opaque-refreshed-token"}'}
    const token = await c.tokens.refresh()
    expect(token.accessToken).toBe('opaque-refreshed-token')
    expect((Date.parse(token.expiresAt) - Date.now()) / 86400_000).toBeCloseTo(7, 2)
    expect(token.scopes).toEqual(['users:read'])
    expect(token.partnerId).toBe('ptn_1')
  })

  it('takes the expiry of a refreshed JWT from its exp claim', async () => {
    const c = client(partner)
    answer = {status: 200, body: exchanged}
    await c.tokens.bearer()
    const exp = Math.floor(Date.now() / 1000) + 7200
    const jwt = `e30.${Buffer.from(JSON.stringify({exp})).toString('base64url')}.sig`
    answer = {status: 200, body: JSON.stringify({access_token: jwt})}
    expect(Date.parse((await c.tokens.refresh()).expiresAt)).toBe(exp * 1000)
  })

  it('takes a revoke answered with no body as done', async () => {
    answer = {status: 204, body: ''}
    expect(await client(partner).call('revokeToken', {bearer: 'some-token'})).toEqual({})
  })
})
