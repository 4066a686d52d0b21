import {describe, expect, it} from 'vitest'
import {endpoints} from '../../src/contract/index.js'
import {checkEveryEndpointServed} from '../../src/sandbox/server.js'

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
