import {readdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type RetryInfo, type SeedResult, sandboxClient} from '../../src/core/index.js'
import {startSandbox, type TestSandbox} from '../../src/testing/index.js'
import {ROOT} from '../helpers/cli.js'
import {tempDir} from './helpers.js'

/**
 * `payctl/testing`: a sandbox started in the test's process for a test suite, seeded and started
 * from a snapshot as asked, and driven through the operator's client: its typed API calls and the
 * control routes as typed calls (partners, snapshots, faults, clock, reset).
 */

const SHOP = join(ROOT, 'examples/fixtures/shop.yaml')
/** A fixture given as a document: two users, one with a funded wallet. */
const PEOPLE = {
  name: 'people',
  users: {
    carol: {email: 'carol@example.test', first_name: 'Carol', last_name: 'Cooper'},
    dan: {email: 'dan@example.test', first_name: 'Dan', last_name: 'Dale'},
  },
  wallets: {carol_usd: {user: '${users.carol.id}', currency: 'USD', initial_balance: '25.00USD'}},
}

/** The id a seed gave the record `kind.name`. */
function idOf(ids: SeedResult, key: string): string {
  const [kind, name] = key.split('.') as [string, string]
  const record = ids[kind]?.[name]
  if (record === undefined || Array.isArray(record)) throw new Error(`no ${key} in ${JSON.stringify(ids)}`)
  return record.id
}

/** The folders startSandbox() keeps an in-memory sandbox's snapshots in, now. */
const snapshotFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith('payctl-testing-'))

const reachable = (url: string) =>
  fetch(`${url}/_sandbox/health`).then(
    () => true,
    () => false,
  )

describe('startSandbox() of payctl/testing', () => {
  it('listens on a free port with no rate limits, seeds the fixtures, and close() leaves nothing behind', async () => {
    const before = snapshotFolders()
    const sandbox = await startSandbox({seed: [SHOP, PEOPLE]})
    expect(sandbox.port).toBeGreaterThan(0)
    expect(sandbox.port).not.toBe(4010)
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`)
    expect((await sandbox.health()).rateLimit).toBe('off')
    // Both fixtures' ids, by their names; the records are there, as the fixtures declared them.
    const alice = idOf(sandbox.seeded, 'wallets.alice_usd')
    const carol = idOf(sandbox.seeded, 'wallets.carol_usd')
    expect((await sandbox.api.call('getWallet', {params: {id: alice}})).currency).toBe('USD')
    expect((await sandbox.api.call('getWallet', {params: {id: carol}})).balance).toMatchObject({
      available: 2500,
    })
    await sandbox.snapshots.save('kept')
    expect(snapshotFolders().length).toBe(before.length + 1)
    await sandbox.close()
    expect(await reachable(sandbox.url)).toBe(false)
    expect(snapshotFolders()).toEqual(before)
  })

  it('starts from a snapshot file: the records of the sandbox it was saved on, ids unchanged', async () => {
    const files = tempDir()
    const path = join(files.dir, 'people.snapshot')
    const first = await startSandbox({seed: PEOPLE})
    const carol = idOf(first.seeded, 'users.carol')
    try {
      await first.snapshots.save('people')
      expect(await first.snapshots.download('people', path)).toBeGreaterThan(0)
    } finally {
      await first.close()
    }
    const second = await startSandbox({fromSnapshot: path})
    try {
      expect((await second.api.call('getUser', {params: {id: carol}})).email).toBe('carol@example.test')
      expect(second.seeded).toEqual({})
    } finally {
      await second.close()
      files.cleanup()
    }
  })

  it('fails a start whose fixture has problems, naming them, and leaves no sandbox running', async () => {
    const before = snapshotFolders()
    await expect(
      startSandbox({seed: {users: {eve: {email: 'eve@example.test', first_name: 'Eve'}}}}),
    ).rejects.toMatchObject({code: 'INVALID_FIXTURE', message: expect.stringContaining('last_name')})
    expect(snapshotFolders()).toEqual(before)
  })
})

describe("a test sandbox's control calls", () => {
  let sandbox: TestSandbox
  const retries: RetryInfo[] = []
  beforeAll(async () => {
    sandbox = await startSandbox({client: {wait: async () => undefined, onRetry: (r) => retries.push(r)}})
  })
  afterAll(() => sandbox.close())

  it('partners.create() gives each test file a partner of its own, which sees nothing of the others', async () => {
    const a = await sandbox.partners.create('file-a')
    const b = await sandbox.partners.create()
    expect(b.name).toMatch(/^partner-[0-9a-f]{8}$/)
    const seededA = await a.seed(PEOPLE)
    const seededB = await b.seed(PEOPLE)
    const carolA = idOf(seededA, 'users.carol')
    expect(idOf(seededB, 'users.carol')).not.toBe(carolA)
    // By the connection alone, as a test runner's worker gets it.
    const bElsewhere = sandboxClient(b.connection)
    await expect(bElsewhere.api.call('getUser', {params: {id: carolA}})).rejects.toMatchObject({status: 404})
    expect((await a.api.call('listUsers', {query: {email: 'carol@example.test'}})).users).toHaveLength(1)
    expect((await sandbox.partners.list()).map((p) => p.name)).toEqual(
      expect.arrayContaining(['file-a', b.name]),
    )
    expect(await sandbox.partners.delete('file-a')).toMatchObject({name: 'file-a', deleted: true})
    await expect(a.api.call('getUser', {params: {id: carolA}})).rejects.toMatchObject({status: 401})
    await bElsewhere.close()
  })

  it('snapshots: save, list, restore and delete a partner’s state', async () => {
    const p = await sandbox.partners.create()
    const ids = await p.seed(PEOPLE)
    const dan = idOf(ids, 'users.dan')
    expect(await p.snapshots.save('start')).toMatchObject({name: 'start', scope: 'partner'})
    await p.api.call('createUser', {body: {email: 'late@example.test', first_name: 'L', last_name: 'Ate'}})
    expect(await p.snapshots.restore('start')).toMatchObject({name: 'start', restored: true})
    expect((await p.api.call('listUsers', {query: {email: 'late@example.test'}})).users).toEqual([])
    expect((await p.api.call('getUser', {params: {id: dan}})).id).toBe(dan)
    expect((await p.snapshots.list()).map((s) => s.name)).toEqual(['start'])
    await p.snapshots.delete('start')
    expect(await p.snapshots.list()).toEqual([])
  })

  it('faults: an injected 503 is retried by the client; list and clear', async () => {
    const p = await sandbox.partners.create()
    const {id} = await p.api.call('createUser', {
      body: {email: 'flaky@example.test', first_name: 'F', last_name: 'L'},
    })
    const fault = await p.faults.add({
      route: 'GET /v1/users/{id}',
      status: 503,
      retryAfterSeconds: 0,
      times: 1,
    })
    expect(fault).toMatchObject({kind: 'api', status: 503, remaining: 1})
    retries.length = 0
    expect((await p.api.call('getUser', {params: {id}})).id).toBe(id)
    expect(retries.map((r) => r.reason)).toEqual(['HTTP 503'])
    expect(await p.faults.list()).toMatchObject([{id: fault.id, injected: 1, remaining: 0}])
    expect(await p.faults.clear()).toBe(1)
    expect(await p.faults.list()).toEqual([])
  })

  it('clock: advance by a duration, by seconds and to a time; freeze and resume', async () => {
    const p = await sandbox.partners.create()
    expect((await p.clock.now()).offsetSeconds).toBe(0)
    expect((await p.clock.advance('1d')).offsetSeconds).toBeGreaterThanOrEqual(86_400)
    expect((await p.clock.advance(90)).offsetSeconds).toBeGreaterThanOrEqual(86_490)
    const frozen = await p.clock.freeze()
    expect(frozen.frozen).toBe(true)
    const to = new Date(Date.parse(frozen.now) + 7 * 86_400_000)
    expect(Date.parse((await p.clock.advance({to})).now)).toBe(to.getTime())
    expect((await p.clock.resume()).frozen).toBe(false)
    await expect(p.clock.advance('soon')).rejects.toMatchObject({
      code: 'INVALID_DURATION',
      message: expect.stringContaining('takes seconds, a duration such as 90s'),
    })
  })

  it('reset: every record of the partner gone, its credentials kept', async () => {
    const p = await sandbox.partners.create()
    const ids = await p.seed(PEOPLE)
    await p.reset()
    await expect(p.api.call('getUser', {params: {id: idOf(ids, 'users.carol')}})).rejects.toMatchObject({
      status: 404,
    })
    // The same fixture seeds again after a reset: its idempotency keys went with the records.
    expect(idOf(await p.seed(PEOPLE), 'users.carol')).not.toBe(idOf(ids, 'users.carol'))
  })

  it('authenticates with a token exchange when asked (variant A), the control routes included', async () => {
    const p = await sandbox.partners.create()
    const a = sandboxClient(p.connection, {variant: 'A'})
    expect(await a.faults.clear()).toBe(0)
    expect(a.api.tokens.cached()?.partnerId).toBe(p.credentials.partnerId)
    await a.close()
  })
})
