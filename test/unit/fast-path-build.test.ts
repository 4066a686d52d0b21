import {createHash} from 'node:crypto'
import {Flags} from '@oclif/core'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {flagSpecs} from '../../scripts/fast-path.ts'
import {surfaceCheckSource} from '../../scripts/surface-check.ts'
import {matchArgv} from '../../src/cli/fast-path/fast-table.js'
import {ONE_CALL_COMMANDS} from '../../src/cli/fast-path/one-call.js'
import {globalFlags, outputFlags} from '../../src/cli/flags.js'
import {type EndpointId, endpoints, surfaceOf} from '../../src/contract/index.js'
import {sha256Hex} from '../../src/core/sha256.js'

/**
 * What the build generates for bin/run.js's fast path (scripts/fast-path.ts, surface-check.ts),
 * and the plain SHA-256 it reads the profile's fingerprint with: each must never take what the
 * full CLI would not.
 */

describe('the build of the fast path', () => {
  const command = (flags: Record<string, unknown>) => ({enableJsonFlag: true, baseFlags: globalFlags, flags})

  it('takes a one-call command whose flags it understands', async () => {
    const specs = await flagSpecs('roundups:pending', command({...outputFlags}), [
      'output',
      'columns',
      'wide',
    ])
    expect(specs.map((s: {name: string}) => s.name)).toEqual([
      'json',
      'profile',
      'debug',
      'no-input',
      'output',
      'columns',
      'wide',
    ])
  })

  it('leaves --jq out of its table, so that a run with it goes to the full CLI', async () => {
    expect(Object.keys(globalFlags)).toContain('jq')
    const flags = await flagSpecs('wallets:get', command({}), [])
    expect(flags.map((s: {name: string}) => s.name)).toEqual(['json', 'profile', 'debug', 'no-input'])
    const table = [
      {
        id: 'wallets:get',
        words: ['wallets', 'get'],
        flags,
        operation: {id: 'getWallet', path: '/wallets/{walletId}', versioned: true, param: 'walletId'},
        check: () => true,
      },
    ]
    expect(matchArgv(['wallets', 'get', 'wal_1', '--json'], table)).toBeDefined()
    expect(matchArgv(['wallets', 'get', 'wal_1', '--jq', '.id'], table)).toBeUndefined()
    expect(matchArgv(['wallets', 'get', 'wal_1', '--jq=.id'], table)).toBeUndefined()
  })

  it('fails when a one-call command gains a flag the fast path does not understand', async () => {
    await expect(
      flagSpecs('wallets:get', command({limit: Flags.integer({summary: 'x'})}), []),
    ).rejects.toThrow(/wallets:get takes --limit, which its fast path does not understand/)
    // A flag it knows by name, defined otherwise: a short form of its own, or values it would parse.
    await expect(
      flagSpecs('roundups:pending', command({...outputFlags, wide: Flags.boolean({char: 'w'})}), [
        'output',
        'columns',
        'wide',
      ]),
    ).rejects.toThrow(/--wide has the short form w/)
    await expect(
      flagSpecs(
        'roundups:pending',
        command({
          ...outputFlags,
          columns: Flags.string({aliases: ['fields'], parse: async (v) => v.toUpperCase()}),
        }),
        ['output', 'columns', 'wide'],
      ),
    ).rejects.toThrow(/--columns reads "local" as "LOCAL"/)
    // And an entry naming a flag of another command's.
    await expect(flagSpecs('wallets:get', command({}), ['wide'])).rejects.toThrow(/does not take/)
  })
})

/** A value the check is given: JSON, as an answer holds. */
const json = fc.jsonValue({maxDepth: 4}) as fc.Arbitrary<unknown>

/** A valid answer of each one-call operation, as the sandbox sends it, to mutate. */
const wallet = {
  id: 'wal_1',
  userId: 'usr_1',
  currency: 'USD',
  status: 'active',
  label: 'x',
  balance: {available: 1, pending: 0, reserved: 0, total: 1, currency: 'USD'},
  limits: {daily: 1, monthly: 2, transaction: 3},
  createdAt: 't',
  updatedAt: 't',
}
const transaction = {
  id: 'txn_1',
  type: 'deposit',
  status: 'completed',
  amount: 100,
  currency: 'USD',
  fee: 0,
  netAmount: 100,
  destinationWalletId: 'wal_1',
  metadata: {a: 'b'},
  createdAt: 't',
  completedAt: null,
}
const attempt = {
  attempt: 1,
  via: 'http',
  at: 't',
  signatureTimestamp: 1,
  status: 200,
  durationMs: 3,
  error: null,
  responseBody: null,
  injected: null,
}
const delivery = {
  id: 'dlv_1',
  eventId: 'evt_1',
  webhookId: 'whk_1',
  listenSessionId: null,
  url: 'http://x',
  status: 'succeeded',
  attempts: 1,
  nextAttemptAt: null,
  lastStatus: 200,
  lastError: null,
  resendOf: null,
  injected: null,
  createdAt: 't',
  completedAt: 't',
  attemptLog: [attempt],
}
const event = {
  id: 'evt_1',
  event: 'wallet.created',
  data: {id: 'wal_1'},
  timestamp: 't',
  deliveries: [delivery],
  deliveryCounts: {total: 1, pending: 0, succeeded: 1, failed: 0},
}
const SAMPLES: Partial<Record<EndpointId, unknown>> = {
  getWallet: wallet,
  getTransaction: transaction,
  getEvent: event,
  getUser: {id: 'usr_1'},
}

/** `value` with the value at one path (chosen by `pick`) replaced, or its key removed. */
function mutate(value: unknown, pick: number, replacement: unknown, remove: boolean): unknown {
  const paths: (string | number)[][] = []
  const walk = (v: unknown, path: (string | number)[]) => {
    paths.push(path)
    if (v !== null && typeof v === 'object')
      for (const [k, c] of Object.entries(v)) walk(c, [...path, Array.isArray(v) ? Number(k) : k])
  }
  walk(value, [])
  const path = paths[pick % paths.length]!
  if (path.length === 0) return replacement
  const copy = structuredClone(value) as Record<string | number, unknown>
  let parent = copy
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  const last = path.at(-1)!
  if (remove && !Array.isArray(parent)) delete parent[last]
  else parent[last] = replacement
  return copy
}

describe('the surface checks the build generates', () => {
  for (const [id, entry] of Object.entries(ONE_CALL_COMMANDS)) {
    const schema = surfaceOf(endpoints[entry.operation])
    const check = new Function(`return ${surfaceCheckSource(schema as never, id)}`)() as (
      v: unknown,
    ) => boolean

    it(`${id}: takes nothing zod refuses, and takes a valid answer`, () => {
      const sample = SAMPLES[entry.operation] ?? {}
      expect(check(sample)).toBe(true)
      expect(schema.safeParse(sample).success).toBe(true)
      fc.assert(
        fc.property(json, fc.nat(), fc.boolean(), (replacement, pick, remove) => {
          const value = mutate(sample, pick, replacement, remove)
          if (check(value)) expect(schema.safeParse(value).success).toBe(true)
        }),
        {numRuns: 500},
      )
      fc.assert(fc.property(json, (value) => !check(value) || schema.safeParse(value).success))
    })
  }

  it('refuses to generate a check it cannot write in plain code', async () => {
    const {z} = await import('zod')
    expect(() => surfaceCheckSource(z.string().email() as never, 'x')).toThrow(
      /cannot check a string_format \(email\)/,
    )
    expect(() => surfaceCheckSource(z.looseObject({a: z.string()}).refine(() => true) as never, 'x')).toThrow(
      /cannot check a object with checks of its own \(custom\)/,
    )
  })
})

describe('the plain SHA-256 of the credentials fingerprint', () => {
  it('is node:crypto’s', () => {
    fc.assert(
      fc.property(
        fc.string({unit: 'binary', maxLength: 300}),
        (text) => sha256Hex(text) === createHash('sha256').update(text).digest('hex'),
      ),
      {numRuns: 2000},
    )
  })
})
