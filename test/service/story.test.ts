import {request} from 'node:http'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {STORY_LIMITS} from '../../src/contract/story.js'
import {LARGE_BODY_CHARS} from '../../src/sandbox/http/large-body.js'
import {codeOf, start, type TestSandbox} from './helpers.js'

/**
 * POST /_sandbox/story takes a document anyone may have edited: everything it says is checked
 * before a row is written, and a refused story leaves nothing behind.
 */

const T0 = '2026-01-10T10:00:00.000Z'
const T1 = '2026-01-10T11:00:00.000Z'

/** A document as JSON reads it: any field may be reached and spoilt. */
// biome-ignore lint/suspicious/noExplicitAny: a test spoils the document field by field
type Doc = Record<string, any>

/** A small story: one user, a USD wallet of 50.00, funded by one card top-up, and its event. */
function story(): Doc {
  return {
    version: 1,
    clock: '2026-01-12T00:00:00.000Z',
    users: {ada: {email: 'user-1@example.test', first_name: 'Alex', last_name: 'Ashdown', created_at: T0}},
    wallets: {
      ada_usd: {
        user: '${users.ada.id}',
        currency: 'USD',
        status: 'active',
        created_at: T0,
        balance: {available: '5000', pending: '0', reserved: '0'},
      },
    },
    transactions: {
      t1: {
        wallet: '${wallets.ada_usd.id}',
        type: 'deposit',
        status: 'completed',
        method: 'card',
        amount: '5000',
        currency: 'USD',
        fee: '0',
        net_amount: '5000',
        to: '${wallets.ada_usd.id}',
        payment_method: 'pm_card_visa',
        created_at: T1,
        completed_at: T1,
      },
    },
    ledger_entries: [
      {
        transaction: '${transactions.t1.id}',
        wallet: '${wallets.ada_usd.id}',
        bucket: 'available',
        amount: '5000',
        at: T1,
      },
    ],
    events: {
      e1: {
        type: 'transaction.completed',
        at: T1,
        data: {id: '${transactions.t1.id}', amount: 5000, currency: 'USD', status: 'completed'},
        deliveries: [
          {
            url: 'https://example.test',
            status: 'succeeded',
            created_at: T1,
            completed_at: T1,
            attempts: [
              {at: T1, status: 500, error: null},
              {at: T1, status: 200, error: null},
            ],
          },
        ],
      },
    },
  }
}

describe('the story route', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
  })
  afterAll(() => t.close())

  test('loads a story under new ids, its times and balances as they were, and moves the clock to it', async () => {
    const res = await t.post('/_sandbox/story', story(), {auth: t.creds.secretKey})
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const {ids, clock} = res.body as {ids: Record<string, string>; clock: string}
    expect(Date.parse(clock)).toBeGreaterThanOrEqual(Date.parse('2026-01-12T00:00:00.000Z'))
    const wallet = await t.get(`/v1/wallets/${ids['wallets.ada_usd']}`)
    expect(wallet.body.data.balance).toMatchObject({available: 5000, total: 5000})
    const txn = await t.get(`/v1/transactions/${ids['transactions.t1']}`)
    expect(txn.body.data).toMatchObject({status: 'completed', amount: 5000, createdAt: T1})
    const event = await t.get(`/v1/events/${ids['events.e1']}`)
    expect(event.body.data.data.id).toBe(ids['transactions.t1'])
    expect(event.body.data.deliveries[0].attemptLog.map((a: {status: number}) => a.status)).toEqual([
      500, 200,
    ])
  })

  const refusals: [string, (s: Doc) => void, RegExp][] = [
    [
      'a reference to no record',
      (s) => (s.transactions.t1.wallet = '${wallets.ghost.id}'),
      /ghost.*names no record/,
    ],
    [
      'a balance its ledger does not come to',
      (s) => (s.wallets.ada_usd.balance.available = '5001'),
      /come to 5000, not 5001/,
    ],
    ['an entry that takes a balance below zero', (s) => (s.ledger_entries[0].amount = '-1'), /below zero/],
    ['a field the format does not have', (s) => (s.users.ada.partner_id = 'ptn_other'), /partner_id/],
    [
      'a transaction in another currency than its wallet',
      (s) => (s.transactions.t1.currency = 'EUR'),
      /not its wallet's currency/,
    ],
    ['an amount that is not an integer', (s) => (s.transactions.t1.amount = '12.5'), /smallest unit/],
    [
      'an event data reference to no record',
      (s) => (s.events.e1.data.id = '${transactions.ghost.id}'),
      /names no record/,
    ],
  ]
  test.each(refusals)('refuses %s, and writes nothing', async (_what, spoil, message) => {
    const users = (await t.get('/v1/users?limit=100')).body.data.users.length
    const s = story()
    spoil(s)
    const res = await t.post('/_sandbox/story', s, {auth: t.creds.secretKey})
    expect(res.status).toBe(400)
    expect(codeOf(res)).toBe('VALIDATION_ERROR')
    expect(JSON.stringify(res.body)).toMatch(message)
    expect((await t.get('/v1/users?limit=100')).body.data.users.length).toBe(users)
  })

  test('a story of more than a megabyte loads as a small one, and its malformed copy is refused', async () => {
    // Bodies this large are parsed apart from the others (http/large-body.ts).
    const s = story()
    for (let i = 2; i <= 20; i++)
      s.events[`e${i}`] = {
        type: 'wallet.created',
        at: T1,
        data: {id: '${wallets.ada_usd.id}', note: 'x'.repeat(60_000)},
      }
    const text = JSON.stringify(s)
    expect(text.length).toBeGreaterThan(LARGE_BODY_CHARS)
    const res = await t.post('/_sandbox/story', s, {auth: t.creds.secretKey})
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const event = await t.get(`/v1/events/${res.body.ids['events.e20']}`)
    expect(event.body.data.data).toMatchObject({
      id: res.body.ids['wallets.ada_usd'],
      note: 'x'.repeat(60_000),
    })
    const refused = await fetch(`${t.sb.url}/_sandbox/story`, {
      method: 'POST',
      headers: {authorization: `Bearer ${t.creds.secretKey}`, 'content-type': 'application/json'},
      body: text.slice(0, -1),
    })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({code: 'VALIDATION_ERROR', message: /Malformed JSON/})
  })

  test('takes no partner token that is not an admin', async () => {
    const minted = await t.post('/v1/auth/jwt', {scopes: ['balance:read']}, {auth: t.creds.secretKey})
    const res = await t.post('/_sandbox/story', story(), {auth: minted.body.token})
    expect(res.status).toBe(403)
  })

  test('a story over its own limit is 413, and the answer tells that limit, not the 1 MiB of other routes', async () => {
    // Said by Content-Length: refused before a byte of the body is read.
    const answer = await new Promise<{status: number; body: string}>((resolve, reject) => {
      const req = request(`${t.sb.url}/_sandbox/story`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.creds.secretKey}`,
          'content-type': 'application/json',
          'content-length': String(STORY_LIMITS.bytes + 1),
        },
      })
      req.on('response', (res) => {
        let body = ''
        res.on('data', (c: Buffer) => {
          body += c.toString()
        })
        res.on('end', () => {
          req.destroy()
          resolve({status: res.statusCode ?? 0, body})
        })
      })
      req.on('error', reject)
      req.write('{')
    })
    expect(answer.status).toBe(413)
    const error = JSON.parse(answer.body)
    expect(error).toMatchObject({code: 'PAYLOAD_TOO_LARGE', details: {limit: STORY_LIMITS.bytes}})
    expect(error.message).toBe(`Request body is larger than ${STORY_LIMITS.bytes} bytes`)
  })
})
