import {type SandboxClient, sandboxClient} from 'payctl'
import {afterAll, beforeAll, expect, inject, it} from 'vitest'

const operator = sandboxClient(inject('sandbox'))
let partner: SandboxClient

beforeAll(async () => {
  partner = await operator.partners.create('resilience')
  await partner.seed('shop.yaml')
})
afterAll(() => operator.close())

it("sees only its own partner's records", async () => {
  // transfers.test.ts seeds the same customers, as another partner.
  const found = await partner.api.call('listUsers', {query: {email: 'alice@example.test'}})
  expect(found.users).toHaveLength(1)
})

it('gets its answer through a failure the sandbox injects: the client retries it', async () => {
  await partner.faults.add({route: 'GET /v1/users', status: 503, retryAfterSeconds: 0, times: 1})
  const found = await partner.api.call('listUsers', {query: {email: 'bob@example.test'}})
  expect(found.users).toHaveLength(1)
  expect(await partner.faults.list()).toMatchObject([{injected: 1, remaining: 0}])
  await partner.faults.clear()
})

it("dates its records by the partner's own clock", async () => {
  await partner.clock.advance('30d')
  const user = await partner.api.call('createUser', {
    body: {email: 'later@example.test', first_name: 'Later', last_name: 'On'},
  })
  const days = (Date.parse(String(user.created_at)) - Date.now()) / 86_400_000
  expect(days).toBeGreaterThan(29)
})
