import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {StorySchema, validStory} from '../../src/contract/story.js'

const T0 = '2026-01-10T10:00:00.000Z'

/** A story with a record in every section. */
const story = () => ({
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
  payment_methods: {
    card: {user: '${users.ada.id}', type: 'card', brand: 'visa', last4: '4242', created_at: T0},
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
      payment_method: '${payment_methods.card.id}',
      metadata: {order: 'o-1'},
      created_at: T0,
      completed_at: T0,
    },
  },
  ledger_entries: [
    {
      transaction: '${transactions.t1.id}',
      wallet: '${wallets.ada_usd.id}',
      bucket: 'available',
      amount: '5000',
      at: T0,
    },
  ],
  events: {
    e1: {
      type: 'transaction.completed',
      at: T0,
      data: {id: '${transactions.t1.id}', amount: 5000},
      deliveries: [
        {
          url: 'https://example.test',
          status: 'succeeded',
          created_at: T0,
          attempts: [{at: T0, status: 200, error: null}],
        },
      ],
    },
  },
  roundup_settings: {
    ada: {
      user: '${users.ada.id}',
      enabled: true,
      multiplier: 1,
      max_roundup_amount: '500',
      currency: 'USD',
      created_at: T0,
      updated_at: T0,
    },
  },
})

/** Every path of a document, inner and leaf, and one past each object's keys (a field it lacks). */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [path]
  const keys = Object.keys(value).map((k) => (Array.isArray(value) ? Number(k) : k))
  return [
    path,
    [...path, 'extra'],
    ...keys.flatMap((k) => pathsOf((value as Record<string, unknown>)[k], [...path, k])),
  ]
}

function spoilt(doc: Record<string, unknown>, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value
  let here = doc as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) here = here[key] as Record<string | number, unknown>
  if (value === undefined) delete here[path.at(-1)!]
  else here[path.at(-1)!] = value
  return doc
}

const PATHS = pathsOf(story())

describe('a story read record by record', () => {
  it('is the document itself when it is valid', () => {
    const doc = story()
    expect(StorySchema.safeParse(doc).success).toBe(true)
    expect(validStory(doc)).toBe(doc)
  })

  it('is what the schema reads it as, or left to the schema', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom(...PATHS),
            fc.oneof(
              fc.anything(),
              fc.constantFrom(undefined, null, '', 'USD', T0, '${users.ada.id}', '1', [], {}),
            ),
          ),
          {minLength: 1, maxLength: 3},
        ),
        (spoils) => {
          let doc: unknown = story()
          for (const [path, value] of spoils) {
            try {
              // A copy: the generator's [] and {} are one object each, shared by every run.
              doc = spoilt(doc as Record<string, unknown>, path, structuredClone(value))
            } catch {
              // A path under a field an earlier spoil replaced: leave it.
            }
          }
          // As a request's body is: what JSON reads.
          if (doc !== undefined) doc = JSON.parse(JSON.stringify(doc))
          const plain = validStory(doc)
          const parsed = StorySchema.safeParse(doc)
          if (plain === undefined) return
          expect(plain).toBe(doc)
          expect(parsed.success).toBe(true)
          expect(parsed.data).toEqual(doc)
        },
      ),
      {numRuns: 2000},
    )
  })
})
