import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {openDatabase} from '../../src/sandbox/features.js'
import {Cursors} from '../../src/sandbox/http/pagination.js'
import {type Reply, start, type TestSandbox, tempDir} from './helpers.js'
import {data, wallet} from './money-helpers.js'

const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY', 'CHF', 'CNY', 'INR', 'BRL', 'MXN']
const base64url = (text: string) => Buffer.from(text).toString('base64url')

/** A cursor the sandbox did not issue: 400 VALIDATION_ERROR naming the cursor, in the business shape. */
function expectRefusedCursor(res: Reply, what: string) {
  expect(res.status, what).toBe(400)
  expect(res.body, what).toMatchObject({
    success: false,
    error: {code: 'VALIDATION_ERROR', details: {field: 'cursor'}},
    meta: {requestId: expect.any(String)},
  })
}

describe('cursors are opaque and authenticated', () => {
  let t: TestSandbox
  let userId: string
  /** Each list that pages, with a path that has a next page. */
  const lists: Record<string, string> = {}
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    userId = await t.user()
    const usd = await wallet(t, 'USD', 0, userId)
    for (const currency of CURRENCIES.slice(1, 4)) await wallet(t, currency, 0, userId)
    for (let i = 0; i < 3; i++) {
      await t.post('/v1/transactions', {
        amount: 1000,
        currency: 'USD',
        method: 'wire',
        destinationWalletId: usd,
      })
      await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_visa'})
      await t.post('/v1/bnplsvc/payments', {userId, amount: 5000, merchantName: 'Shop'})
    }
    lists.wallets = '/v1/wallets?limit=2'
    lists.transactions = '/v1/transactions?limit=2'
    lists.payment_methods = `/v1/users/${userId}/payment-methods?limit=2`
    lists.bnpl = '/v1/bnplsvc/payments?limit=2'
    lists.events = '/v1/events?limit=2'
  })
  afterAll(() => t.close())

  const cursorOf = async (path: string) => {
    const page = data(await t.get(path))
    expect(page.hasMore, path).toBe(true)
    return page.nextCursor as string
  }

  test('a plain cursor spelled by hand (base64 of "wallets:1") is refused on every list', async () => {
    for (const [list, path] of Object.entries(lists)) {
      for (const forged of [
        base64url(`${list}:1`),
        base64url(`${list}:0`),
        Buffer.from(`${list}:1`).toString('base64'),
      ]) {
        expectRefusedCursor(await t.get(`${path}&cursor=${encodeURIComponent(forged)}`), `${list} ${forged}`)
      }
    }
  })

  test('a cursor reveals nothing: no list name, no partner, no row position', async () => {
    for (const [list, path] of Object.entries(lists)) {
      const cursor = await cursorOf(path)
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      const sealed = Buffer.from(cursor, 'base64url')
      const decoded = sealed.toString('latin1')
      expect(decoded, list).not.toContain(t.creds.partnerId)
      // Not the plain form (`wallets:1`), and as long for every list and position: a nonce, the
      // sealed position and its tag, whatever the row (random bytes may hold any short text).
      expect(decoded, list).not.toMatch(new RegExp(`^${list}:\\d+$`))
      expect(sealed.length, list).toBe(36)
      // Issued twice for the same position, it is not the same text: nothing to compare across pages.
      expect(await cursorOf(path), list).not.toBe(cursor)
    }
  })

  test('a truncated, altered or another list’s cursor is refused', async () => {
    const cursor = await cursorOf(lists.wallets!)
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`
    for (const bad of [cursor.slice(0, -1), cursor.slice(0, 20), flipped, `${cursor}AA`]) {
      expectRefusedCursor(await t.get(`${lists.wallets}&cursor=${bad}`), bad)
    }
    expectRefusedCursor(
      await t.get(`${lists.transactions}&cursor=${cursor}`),
      'a wallets cursor on transactions',
    )
    expectRefusedCursor(
      await t.get(`${lists.events}&cursor=${await cursorOf(lists.bnpl!)}`),
      'bnpl on events',
    )
  })

  test('paging through 250 rows returns each once, in order', async () => {
    const owner = await t.user({email: 'many@example.com'})
    const created: string[] = []
    for (let i = 0; i < 250; i++) {
      const res = await t.post(`/v1/users/${owner}/payment-methods`, {type: 'card', token: 'tok_visa'})
      created.push(data(res).id)
    }
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const qs = new URLSearchParams({limit: '7', ...(cursor ? {cursor} : {})})
      const page = data(await t.get(`/v1/users/${owner}/payment-methods?${qs}`))
      seen.push(...page.paymentMethods.map((m: {id: string}) => m.id))
      cursor = page.nextCursor
    } while (cursor !== null)
    expect(seen).toEqual(created)
  })
})

describe('a cursor can be passed back on the command line', () => {
  test('none starts with "-", which a command line parser would take for a flag (--cursor=-w…)', () => {
    const database = openDatabase(':memory:')
    try {
      const cursors = new Cursors(database)
      const sealed = Array.from({length: 4000}, (_, i) => cursors.seal('transactions', 'p', i))
      expect(sealed.filter((c) => c.startsWith('-'))).toEqual([])
      // And each still opens: the IV keeps 95 random bits.
      expect(cursors.open('transactions', 'p', sealed[1234]!)).toBe(1234)
    } finally {
      database.close()
    }
  })
})

describe('a cursor belongs to the partner it was issued to', () => {
  test("another partner's cursor is refused; the partner's own works after a restart", async () => {
    const files = tempDir()
    try {
      const first = await start({data: files.file, rateLimit: 'off'})
      const partnerA = first.creds
      for (let i = 0; i < 3; i++) await wallet(first, 'USD')
      const page = data(await first.get('/v1/wallets?limit=2'))
      await first.close()
      // The same data file, started for a second partner: both partners' credentials work.
      const second = await start({
        data: files.file,
        rateLimit: 'off',
        credentials: {partnerId: 'partner_second'},
      })
      try {
        for (let i = 0; i < 3; i++) await wallet(second, 'EUR')
        expectRefusedCursor(
          await second.get(`/v1/wallets?limit=2&cursor=${page.nextCursor}`),
          'B with A’s cursor',
        )
        const own = await second.get(`/v1/wallets?limit=2&cursor=${page.nextCursor}`, {
          auth: partnerA.secretKey,
        })
        expect(own.status).toBe(200)
        expect(data(own).wallets.map((w: {currency: string}) => w.currency)).toEqual(['USD'])
        // B's own cursors page through B's wallets only.
        const mine = data(await second.get('/v1/wallets?limit=2'))
        const rest = data(await second.get(`/v1/wallets?limit=2&cursor=${mine.nextCursor}`))
        expect([...mine.wallets, ...rest.wallets].map((w: {currency: string}) => w.currency)).toEqual([
          'EUR',
          'EUR',
          'EUR',
        ])
      } finally {
        await second.close()
      }
    } finally {
      files.cleanup()
    }
  })
})
