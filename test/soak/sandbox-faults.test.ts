import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {connect} from '../../src/core/index.js'
import {payctl, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {query} from '../service/helpers.js'

describe('sandbox faults: bad input is refused before anything is sent', () => {
  let sandbox: LocalSandbox
  beforeAll(async () => {
    sandbox = await startLocalSandbox()
  })
  afterAll(() => sandbox.stop())
  const run = (args: string[]) => payctl(args, {configDir: sandbox.configDir})

  it.each([
    [
      ['--route', 'POST /v1/transaction', '--status', '503'],
      '--route',
      'did you mean "POST /v1/transactions"',
    ],
    [['--route', 'POST /v1/transactions', '--status', '503', '--rate', '1.5'], '--rate', 'from 0 to 1'],
    [['--route', 'POST /v1/transactions', '--drop', 'sideways'], '--drop', 'before or after'],
    [['--route', 'POST /v1/transactions', '--latency', '61s'], '--latency', 'at most 60 s'],
    [['--route', 'POST /v1/transactions', '--latency', '2s..100ms'], '--latency', 'shorter to the longer'],
    [['--route', 'POST /v1/transactions', '--status', '404'], '--status', '429, 500, 503'],
    [['--route', 'POST /v1/transactions'], '--status', 'needs an effect'],
    [
      ['--route', 'POST /v1/transactions', '--status', '503', '--drop', 'after'],
      '--drop',
      'do not go together',
    ],
  ])('sandbox faults add %j is a usage error naming %s', async (args, flag, says) => {
    const r = await run(['sandbox', 'faults', 'add', ...args])
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stderr).toContain(flag)
    expect(r.stderr).toContain(says)
  })

  it('lists every fault across pages with --all, and refuses the 101st with FAULT_LIMIT', async () => {
    const added: string[] = []
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${sandbox.url}/_sandbox/faults`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.credentials.secretKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({route: 'GET /v1/users/{id}', status: 503, times: 1000}),
      })
      expect(res.status).toBe(201)
      added.push(((await res.json()) as {id: string}).id)
    }
    const refused = await run(['sandbox', 'faults', 'add', '--route', 'POST /v1/users', '--status', '503'])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('FAULT_LIMIT')
    expect(refused.stderr).toContain('payctl sandbox faults clear')

    const page = (await run(['sandbox', 'faults', 'list', '--json'])).json<{
      faults: {id: string}[]
      hasMore: boolean
    }>()
    expect(page.faults.map((f) => f.id)).toEqual(added.slice(0, 20))
    expect(page.hasMore).toBe(true)
    const all = await run(['sandbox', 'faults', 'list', '--all', '--json'])
    expect(all.json<{faults: {id: string}[]}>().faults.map((f) => f.id)).toEqual(added)
    const lines = (await run(['sandbox', 'faults', 'list', '--all', '--output', 'ndjson'])).stdout
      .trim()
      .split('\n')
    expect(lines.map((l) => (JSON.parse(l) as {id: string}).id)).toEqual(added)
    const table = await run(['sandbox', 'faults', 'list', '--limit', '30'])
    expect(
      table.stdout
        .trim()
        .split('\n')
        .filter((l) => l.includes('flt_')),
    ).toHaveLength(30)
    expect(table.stderr).toContain('or --all for everything')

    expect((await run(['sandbox', 'faults', 'clear'])).exitCode).toBe(0)
    const none = await run(['sandbox', 'faults', 'list'])
    expect(none.stdout).toContain('No faults. Add one with: payctl sandbox faults add')
  })

  it('webhooks faults add and listen refuse bad delivery-fault values the same way', async () => {
    const hook = await run([
      'webhooks',
      'register',
      '--url',
      'http://127.0.0.1:9/h',
      '--events',
      '*',
      '--json',
    ])
    const id = hook.json<{id: string}>().id
    for (const [args, flag] of [
      [['--duplicate', '2'], '--duplicate'],
      [['--reorder', '1'], '--reorder'],
      [['--delay', 'soon'], '--delay'],
      [['--fail-first', '9'], '--fail-first'],
      [['--tamper-signature', '-0.1'], '--tamper-signature'],
      [[], '--duplicate'],
    ] as const) {
      const r = await run(['webhooks', 'faults', 'add', id, ...args])
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(flag)
    }
    const listen = await run(['webhooks', 'listen', '--tamper-signature', '1.2'])
    expect(listen.exitCode).toBe(2)
    expect(listen.stderr).toContain('--tamper-signature')
    // Nothing reached the sandbox.
    expect((await run(['sandbox', 'faults', 'list', '--json'])).json()).toEqual({
      faults: [],
      hasMore: false,
      nextCursor: null,
    })
  })
})

it('1,000 wallet transfers through payctl’s core, with 20 % 503s and 5 % drops after the commit, apply exactly once each', async () => {
  const temp = tempConfigDir()
  const data = join(temp.dir, 'faults.db')
  // Served in this process, as the client is: the faults and the data file are the sandbox's own.
  const sandbox = await startLocalSandbox({data}, {configDir: temp.dir})
  try {
    const cli = (args: string[]) => payctl(args, {configDir: sandbox.configDir})
    const route = ['--route', 'POST /v1/transactions', '--retry-after', '0s', '--seed', '26']
    expect(
      (await cli(['sandbox', 'faults', 'add', ...route, '--status', '503', '--rate', '0.2'])).exitCode,
    ).toBe(0)
    const drop = ['--route', 'POST /v1/transactions', '--drop', 'after', '--rate', '5%', '--seed', '27']
    expect((await cli(['sandbox', 'faults', 'add', ...drop])).exitCode).toBe(0)

    // A client as a partner's code would make it: payctl's own, with its retries and idempotency keys
    // (its retries sent at once: what is proved here is that each applies once, not the schedule).
    const client = connect({
      configDir: sandbox.configDir,
      profile: 'local',
      retries: 10,
      wait: () => Promise.resolve(),
    })
    const WALLETS = 10
    const INITIAL = 1_000_000
    const wallets: string[] = []
    for (let i = 0; i < WALLETS; i++) {
      const user = await client.call('createUser', {
        body: {email: `f${i}@example.test`, first_name: 'F', last_name: `${i}`},
      })
      const wallet = await client.call('createWallet', {
        body: {userId: user.id, currency: 'USD', initialBalance: INITIAL},
      })
      wallets.push(wallet.id)
    }
    const TRANSFERS = 1000
    const began = performance.now()
    let next = 0
    const worker = async () => {
      for (let n = next++; n < TRANSFERS; n = next++) {
        await client.call('createTransaction', {
          body: {
            method: 'wallet',
            amount: 100 + (n % 7),
            currency: 'USD',
            sourceWalletId: wallets[n % WALLETS]!,
            destinationWalletId: wallets[(n * 3 + 1) % WALLETS]!,
            metadata: {n: String(n)},
          },
        })
      }
    }
    await Promise.all(Array.from({length: 20}, worker))
    const seconds = (performance.now() - began) / 1000
    const faults = (await cli(['sandbox', 'faults', 'list', '--json'])).json<{faults: {injected: number}[]}>()
    const [unavailable, dropped] = faults.faults.map((f) => f.injected)
    console.info(
      `1,000 transfers under faults: ${seconds.toFixed(1)} s, ${unavailable} injected 503s, ${dropped} connections cut after the commit`,
    )
    expect(unavailable).toBeGreaterThan(0)
    expect(dropped).toBeGreaterThan(0)
    await sandbox.stop()

    // Exactly one transfer per n: none lost, none applied twice although 5 % of answers never came.
    const out = query(data, "SELECT metadata FROM transactions WHERE type = 'transfer_out'")
    const ns = out.map((t) => (JSON.parse(t.metadata as string) as {n: string}).n)
    expect(ns).toHaveLength(TRANSFERS)
    expect(new Set(ns).size).toBe(TRANSFERS)
    // Every balance is its ledger, and the transfers only moved money around.
    const perAccount = new Map<string, bigint>()
    for (const e of query(data, 'SELECT account, amount FROM ledger_entries')) {
      const account = e.account as string
      perAccount.set(account, (perAccount.get(account) ?? 0n) + BigInt(e.amount as string))
    }
    let total = 0n
    for (const w of query(data, 'SELECT id, available, pending, reserved FROM wallets')) {
      for (const bucket of ['available', 'pending', 'reserved']) {
        expect(BigInt(w[bucket] as string), `${w.id}:${bucket}`).toBe(
          perAccount.get(`${w.id}:${bucket}`) ?? 0n,
        )
      }
      total += BigInt(w.available as string) + BigInt(w.pending as string) + BigInt(w.reserved as string)
    }
    expect(total).toBe(BigInt(INITIAL * WALLETS))
  } finally {
    await sandbox.stop()
    temp.cleanup()
  }
}, 180_000)
