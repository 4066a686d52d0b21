import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, expectTypeOf, it} from 'vitest'
import type {WalletView} from '../../src/contract/index.js'
import {closeTransport, PayctlClient, type ResolvedProfile} from '../../src/core/index.js'

/**
 * `call()` is typed from the endpoint table alone: the compiler checks each call's path
 * parameters, body and query against the operation's entry, and the request on the wire follows
 * the input exactly (a body only when one is given). A real server on an ephemeral loopback port
 * records what arrives.
 */

interface Seen {
  method: string | undefined
  path: string | undefined
  contentType: string | undefined
  body: string
}

let server: Server
let url: string
let seen: Seen[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => {
      seen.push({method: req.method, path: req.url, contentType: req.headers['content-type'], body})
      res.writeHead(200, {'content-type': 'application/json'}).end('{}')
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

function client() {
  const profile: ResolvedProfile = {
    name: 't',
    environment: 'local',
    kind: 'local',
    baseUrl: url,
    auth: {variant: 'B', secretKey: 'test_call_key_0123'},
    stored: false,
    sources: {profile: 'flag', environment: 'flag', baseUrl: 'flag', authUrl: 'flag', credentials: 'flag'},
  }
  return new PayctlClient({profile})
}

/** Only the request matters here: the `{}` answered is no valid record of most operations. */
const sent = (work: Promise<unknown>) => work.catch(() => undefined)

describe('a call on the wire', () => {
  it('sends a body only when the call gives one, an empty one included', async () => {
    seen = []
    await sent(client().call('refundTransaction', {params: {id: 'txn_1'}, body: {}}))
    await sent(client().call('refundTransaction', {params: {id: 'txn_1'}}))
    await sent(client().call('transferRoundups', {params: {id: 'usr_1'}}))
    expect(seen.map(({method, path, contentType, body}) => [method, path, contentType, body])).toEqual([
      ['POST', '/v1/transactions/txn_1/refund', 'application/json', '{}'],
      ['POST', '/v1/transactions/txn_1/refund', undefined, ''],
      ['POST', '/v1/roundupsvc/users/usr_1/roundups/transfer', undefined, ''],
    ])
  })

  it('puts path parameters in the path, encoded, and the query in the query string', async () => {
    seen = []
    await sent(client().call('getWallet', {params: {id: 'wal/1'}}))
    await sent(client().call('listWallets', {query: {userId: 'usr_1', limit: 2}}))
    expect(seen.map((s) => s.path)).toEqual(['/v1/wallets/wal%2F1', '/v1/wallets?userId=usr_1&limit=2'])
  })
})

describe('the types of a call', () => {
  // Never run: the compiler checks these lines (tsc -p tsconfig.json covers test/).
  function compileOnly(c: PayctlClient) {
    // The result is the surface of the operation's answer.
    expectTypeOf(c.call('getWallet', {params: {id: 'wal_1'}})).resolves.toEqualTypeOf<WalletView>()

    // Path parameters are required where the path has placeholders, and only those.
    // @ts-expect-error -- no input at all: the id is missing
    c.call('getWallet')
    // @ts-expect-error -- an input without params
    c.call('getWallet', {})
    // @ts-expect-error -- a parameter the path does not name
    c.call('getWallet', {params: {walletId: 'wal_1'}})
    // @ts-expect-error -- params for a path without placeholders
    c.call('listWallets', {params: {id: 'wal_1'}})

    // A body is required where the operation needs one, checked field by field.
    c.call('createWallet', {body: {userId: 'usr_1', currency: 'USD'}})
    // @ts-expect-error -- the body is missing
    c.call('createWallet', {})
    // @ts-expect-error -- a required field is missing
    c.call('createWallet', {body: {userId: 'usr_1'}})
    // @ts-expect-error -- a field the operation does not take
    c.call('createWallet', {body: {userId: 'usr_1', currency: 'USD', colour: 'red'}})
    // @ts-expect-error -- a field of the wrong type
    c.call('createWallet', {body: {userId: 'usr_1', currency: 840}})
    // @ts-expect-error -- every field is optional, but the operation still requires a body
    c.call('updateWallet', {params: {id: 'wal_1'}})
    // @ts-expect-error -- a body for an operation that takes none
    c.call('getWallet', {params: {id: 'wal_1'}, body: {}})

    // A body whose fields are all optional, or that the operation may go without, may be left out.
    c.call('refundTransaction', {params: {id: 'txn_1'}})
    c.call('createCard', {params: {id: 'usr_1'}})
    c.call('cancelBnplPayment', {params: {id: 'bnpl_1'}})

    // Amounts may be exact, beyond 2^53.
    c.call('createTransaction', {
      body: {amount: 2n ** 60n, currency: 'USD', method: 'wallet', destinationWalletId: 'wal_1'},
    })

    // @ts-expect-error -- a query field the operation does not take
    c.call('listWallets', {query: {colour: 'red'}})
    // @ts-expect-error -- an operation the table does not have
    c.call('getWalet', {params: {id: 'wal_1'}})
  }
  it('is checked by the compiler', () => {
    expect(compileOnly).toBeTypeOf('function')
  })
})
