import {type SandboxClient, sandboxClient} from 'payctl'
import {afterAll, beforeAll, beforeEach, expect, inject, it} from 'vitest'

// The operator's client, from what the global set-up provided; and a partner of this file's own,
// whose records, clock and faults no other file sees: the files run side by side on one sandbox.
const operator = sandboxClient(inject('sandbox'))
let partner: SandboxClient
let alice: string
let bob: string

beforeAll(async () => {
  partner = await operator.partners.create('transfers')
  // The ids of what the fixture made, by its names.
  const {wallets} = (await partner.seed('shop.yaml')) as {wallets: Record<string, {id: string}>}
  alice = wallets.alice_usd!.id
  bob = wallets.bob_usd!.id
  // Every test starts from the seeded state: saved once, restored before each test.
  await partner.snapshots.save('seeded')
})
beforeEach(async () => {
  await partner.snapshots.restore('seeded')
})
// Closes the partner's connections too.
afterAll(() => operator.close())

const available = async (wallet: string) =>
  (await partner.api.call('getWallet', {params: {id: wallet}})).balance.available

it('moves money between the seeded wallets', async () => {
  const transfer = await partner.api.call('createTransaction', {
    body: {amount: 2_500, currency: 'USD', method: 'wallet', sourceWalletId: alice, destinationWalletId: bob},
  })
  expect(transfer.status).toBe('completed')
  expect(await available(alice)).toBe(7_500)
  expect(await available(bob)).toBe(4_500)
})

it('starts each test from the seeded balances', async () => {
  expect(await available(alice)).toBe(10_000)
  expect(await available(bob)).toBe(2_000)
})
