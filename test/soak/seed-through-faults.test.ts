import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliResult, payctl, tempConfigDir} from '../helpers/cli.js'
import {
  type Fault,
  type FaultProxy,
  faultSeed,
  seededFaults,
  startFaultProxy,
} from '../helpers/fault-proxy.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {query} from '../service/helpers.js'

// Every fault a request meets follows from this seed: rerun a failure with PAYCTL_FAULT_SEED=<seed>.
const SEED = faultSeed()

/**
 * How the runs here wait out a retry's delay: not at all. What they prove is what the retries do
 * (each record once, clear errors), not the schedule, which test/unit/transport.test.ts holds.
 */
const retryAtOnce = () => Promise.resolve()

/** Seed's ids document without the signing secrets of the webhooks it made (each run gives its own). */
function withoutSecrets(doc: Record<string, Record<string, {id: string}[]>>) {
  return Object.fromEntries(
    Object.entries(doc).map(([kind, byName]) => [
      kind,
      Object.fromEntries(
        Object.entries(byName).map(([name, records]) => [name, records.map(({id}) => ({id}))]),
      ),
    ]),
  )
}

const STACK_LINE = /^\s+at .*\.(js|ts|mjs|cjs):\d+/m
// How payctl reports a failure on stderr: `CODE: message`.
const ERROR_LINE = /^[A-Z][A-Z0-9_]+: \S/m

/** A failed run of payctl is one clear error: a code on stderr, no stack trace, a failure exit code. */
function expectClearFailure(r: CliResult, what: string, json = false): void {
  const context = `${what} (PAYCTL_FAULT_SEED=${SEED})\nexit ${r.exitCode}\nstderr:\n${r.stderr}\nstdout:\n${r.stdout.slice(0, 2000)}`
  expect([1, 4, 5], context).toContain(r.exitCode)
  // Under --json the error is the document on stdout, not a line on stderr.
  if (json) expect(r.json<{error: {code: string}}>().error.code, context).toMatch(/^[A-Z][A-Z0-9_]+$/)
  else expect(r.stderr, context).toMatch(ERROR_LINE)
  expect(r.stderr, context).not.toMatch(STACK_LINE)
}

const USERS = 250
const PAYMENT_METHODS = 100
const TRANSFERS = USERS - 1
const ROUNDUPS = 25
const WEBHOOKS = 2
const FIXTURE = `version: 1
name: faults
users:
  u:
    count: ${USERS}
    email: u{{n}}@example.test
    first_name: Fault
    last_name: U{{n}}
wallets:
  w:
    count: ${USERS}
    user: \${users.u[{{i}}].id}
    currency: USD
    initial_balance: 100.00USD
payment_methods:
  card:
    count: ${PAYMENT_METHODS}
    user: \${users.u[{{i}}].id}
    type: card
    token: tok_visa
transactions:
  deposit:
    count: ${PAYMENT_METHODS}
    method: card
    amount: 20.00USD
    to: \${wallets.w[{{i}}].id}
    payment_method: \${payment_methods.card[{{i}}].id}
  pay_next:
    count: ${TRANSFERS}
    method: wallet
    amount: 1.00USD
    from: \${wallets.w[{{i}}].id}
    to: \${wallets.w[{{n}}].id}
    metadata:
      n: "{{n}}"
webhooks:
  hook:
    count: ${WEBHOOKS}
    url: http://127.0.0.1:9/hooks/{{n}}
    events: [transaction.completed]
roundup_settings:
  r:
    count: ${ROUNDUPS}
    user: \${users.u[{{i}}].id}
    multiplier: 2
    max_roundup_amount: 5
purchases:
  coffee:
    count: ${ROUNDUPS}
    user: \${users.u[{{i}}].id}
    amount: 4.35
    merchant_name: Corner Coffee
    after: ['roundup_settings.r[{{i}}]']
`
const RECORDS = USERS * 2 + PAYMENT_METHODS * 2 + TRANSFERS + WEBHOOKS + ROUNDUPS * 2

describe(`faults between the CLI and the sandbox (PAYCTL_FAULT_SEED=${SEED})`, () => {
  let sandbox: LocalSandbox
  let proxy: FaultProxy
  const data = () => join(sandbox.configDir, 'sandbox.db')
  // payctl runs in this process, from src/: what a seed does through faults is its own, not its process's.
  const direct = (...args: string[]) => payctl(args, {configDir: sandbox.configDir, timeoutMs: 60_000})
  const viaProxy = (...args: string[]) =>
    payctl(args, {
      configDir: sandbox.configDir,
      env: {PAYCTL_BASE_URL: proxy.url},
      timeoutMs: 90_000,
      wait: retryAtOnce,
    })
  const listAll = async <T>(what: 'wallets' | 'transactions', ...filter: string[]): Promise<T[]> => {
    const r = await direct(what, 'list', '--all', '--json', ...filter)
    expect(r.exitCode, r.stderr).toBe(0)
    return r.json<Record<string, T[]>>()[what]!
  }

  const temp = tempConfigDir()
  let doomed: string | undefined
  let doomedSeen = 0

  beforeAll(async () => {
    sandbox = await startLocalSandbox({data: join(temp.dir, 'sandbox.db')}, {configDir: temp.dir})
    // Faults on every request to /v1, the token exchange included; about one request in four
    // fails outright, so some records exhaust their retries and end a run early.
    const random = seededFaults(SEED, {
      pass: 70,
      dropBefore: 5,
      dropAfterForward: 6,
      truncate: 6,
      delay: 5,
      status502: 3,
      status503: 3,
      status429: 2,
    })
    // And one transaction (the first one sent) whose first four attempts all reach the service but
    // get no answer, so that the run that sends it surely ends early, after the service acted four
    // times on one key: the seed needs two runs at least. Only a request with that key: the
    // requests before it carry none (the health check, the token exchange), and must not take
    // those four drops in its place.
    proxy = await startFaultProxy(sandbox.url, (req) => {
      const key = req.headers['idempotency-key']
      if (req.method === 'POST' && req.url === '/v1/transactions' && typeof key === 'string') doomed ??= key
      return typeof key === 'string' && key === doomed && doomedSeen++ < 4
        ? 'drop-after-forward'
        : random(req)
    })
  })
  afterAll(async () => {
    await proxy?.close()
    await sandbox?.stop()
    temp.cleanup()
  })

  it('seeds ~1,000 records through drops, truncated bodies, delays and 502/503/429; reruns finish with exactly the declared records', async () => {
    const fixture = join(sandbox.configDir, 'faults.yaml')
    writeFileSync(fixture, FIXTURE)
    const runs: CliResult[] = []
    // Runs alternate between the human form (errors on stderr) and --json (errors on stdout); the
    // ids come from --output either way.
    const output = join(sandbox.configDir, 'ids.json')
    const codes: string[] = []
    let result: Record<string, Record<string, {id: string}[]>> | undefined
    for (let i = 0; i < 12 && result === undefined; i++) {
      const json = i % 2 === 1
      const r = await viaProxy(
        'seed',
        fixture,
        '--concurrency',
        '16',
        '--rate',
        'off',
        '--output',
        output,
        ...(json ? ['--json'] : []),
      )
      runs.push(r)
      if (r.exitCode === 0) {
        result = JSON.parse(readFileSync(output, 'utf8'))
        continue
      }
      const context = `${r.stdout}\n${r.stderr}\nPAYCTL_FAULT_SEED=${SEED}`
      expect([1, 4, 5], context).toContain(r.exitCode)
      expect(r.stderr, context).not.toMatch(STACK_LINE)
      if (json) {
        const error = r.json<{
          error: {code: string; message: string; exitCode: number; suggestions: string[]}
        }>().error
        expect(error.code, context).toMatch(/^[A-Z][A-Z0-9_]+$/)
        expect(error.suggestions.join(' '), context).toContain('Run the same command again to finish')
        expect(error.exitCode).toBe(r.exitCode)
        codes.push(error.code)
      } else {
        const line = /^([A-Z][A-Z0-9_]+): (.*)$/m.exec(r.stderr)
        expect(line, context).not.toBeNull()
        expect(r.stderr, context).toMatch(/^Run the same command again to finish/m)
        codes.push(line![1]!)
      }
    }
    expect(result, `seed never finished in ${runs.length} runs (PAYCTL_FAULT_SEED=${SEED})`).toBeDefined()
    expect(runs.length).toBeGreaterThanOrEqual(2)
    // The doomed transaction's first four attempts were cut, each after the service had acted.
    expect(doomed).toBeDefined()
    const doomedFaults = proxy.seen.filter((s) => s.idempotencyKey === doomed).map((s) => s.fault)
    expect(doomedFaults.slice(0, 4)).toEqual(Array(4).fill('drop-after-forward'))
    const faulted = proxy.seen.filter((s) => s.fault !== 'pass').length
    console.info(
      `seed through faults: ${runs.length} runs (${codes.join(', ')}), ${proxy.seen.length} requests, ${faulted} faulted (PAYCTL_FAULT_SEED=${SEED})`,
    )
    expect(proxy.seen.length).toBeGreaterThan(RECORDS)
    expect(faulted).toBeGreaterThan(RECORDS / 10)

    // Nothing lost, nothing twice: the answer names every record once, and the service holds
    // exactly what the fixture declares.
    const ids = result!
    const all = Object.values(ids).flatMap((byName) => Object.values(byName).flat())
    expect(all).toHaveLength(RECORDS)
    // A user has one round-up settings record, which the seed names by the user's id.
    expect(ids.roundup_settings!.r!.map((r) => r.id)).toEqual(
      ids.users!.u!.slice(0, ROUNDUPS).map((u) => u.id),
    )
    expect(new Set(all.map((r) => r.id)).size).toBe(RECORDS - ROUNDUPS)

    const wallets = await listAll<{id: string; userId: string}>('wallets')
    expect(wallets).toHaveLength(USERS)
    expect(new Set(wallets.map((w) => w.id))).toEqual(new Set(ids.wallets!.w!.map((w) => w.id)))
    expect(new Set(wallets.map((w) => w.userId))).toEqual(new Set(ids.users!.u!.map((u) => u.id)))
    const transactions = await listAll<{type: string}>('transactions')
    const byType = (type: string) => transactions.filter((t) => t.type === type).length
    // Each funded wallet has its opening adjustment; each transfer is a pair of transactions.
    expect({
      total: transactions.length,
      adjustment: byType('adjustment'),
      deposit: byType('deposit'),
      transfer_out: byType('transfer_out'),
      transfer_in: byType('transfer_in'),
    }).toEqual({
      total: USERS + PAYMENT_METHODS + TRANSFERS * 2,
      adjustment: USERS,
      deposit: PAYMENT_METHODS,
      transfer_out: TRANSFERS,
      transfer_in: TRANSFERS,
    })
    // What the lists cannot show, read from the database as an outside observer.
    const count = (table: string) => Number(query(data(), `SELECT count(*) AS n FROM ${table}`)[0]!.n)
    expect({
      users: count('users'),
      payment_methods: count('payment_methods'),
      webhooks: count('webhook_endpoints'),
      roundup_settings: count('roundup_settings'),
      roundups: count('roundups'),
    }).toEqual({
      users: USERS,
      payment_methods: PAYMENT_METHODS,
      webhooks: WEBHOOKS,
      roundup_settings: ROUNDUPS,
      roundups: ROUNDUPS,
    })

    // Reading back through faults: every page, in order, once; or one JSON document with what was
    // read, the cursor to resume from and the error — and resuming there finishes the list.
    const direct = transactions.map((t) => (t as unknown as {id: string}).id)
    const readThrough = async (url: string, ...extra: string[]) => {
      const r = await payctl(['transactions', 'list', '--all', '--json', ...extra], {
        configDir: sandbox.configDir,
        env: {PAYCTL_BASE_URL: url},
        timeoutMs: 60_000,
        wait: retryAtOnce,
      })
      expect(r.stderr).not.toMatch(STACK_LINE)
      const doc = r.json<{
        transactions?: {id: string}[]
        hasMore?: boolean
        nextCursor?: string | null
        error?: {code: string}
      }>()
      // A failure before the first page is the plain error document: nothing was read.
      if (doc.transactions === undefined) {
        expect([1, 4, 5], r.stdout).toContain(r.exitCode)
        expect(doc.error?.code, r.stdout).toMatch(/^[A-Z][A-Z0-9_]+$/)
      }
      return {r, doc, ids: (doc.transactions ?? []).map((t) => t.id)}
    }
    const failing = await startFaultProxy(sandbox.url, (req) =>
      req.url?.includes('cursor=') ? {status: 503, body: ''} : 'pass',
    )
    try {
      const cut = await readThrough(failing.url)
      expect(cut.r.exitCode).toBe(1)
      expect(cut.doc.error?.code).toBe('HTTP_503')
      expect(cut.doc.hasMore).toBe(true)
      expect(cut.ids).toEqual(direct.slice(0, cut.ids.length))
      const rest = await readThrough(proxy.url, `--cursor=${cut.doc.nextCursor!}`)
      if (rest.r.exitCode === 0) expect([...cut.ids, ...rest.ids]).toEqual(direct)
    } finally {
      await failing.close()
    }
    const whole = await readThrough(proxy.url)
    if (whole.r.exitCode === 0) expect(whole.ids).toEqual(direct)
    else expect(whole.ids).toEqual(direct.slice(0, whole.ids.length))

    // A rerun after the job is done creates nothing and answers the same ids.
    const again = await viaProxy('seed', fixture, '--concurrency', '16', '--rate', 'off', '--json')
    if (again.exitCode !== 0) expectClearFailure(again, 'seed rerun', true)
    // The same records; a webhook's signing secret is given only by the run that made it.
    else expect(withoutSecrets(again.json())).toEqual(withoutSecrets(ids))
    expect(await listAll('wallets')).toHaveLength(USERS)
  }, 240_000)

  it('repeats transactions create with fixed idempotency keys through faults until each succeeds: one transaction per key, every failure a clear error', async () => {
    // Two wallets made directly, with the sandbox's secret key.
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${sandbox.url}/v1${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.credentials.secretKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      })
      expect(res.status, await res.clone().text()).toBe(201)
      return ((await res.json()) as {data: {id: string}}).data.id
    }
    const user = await api('/users', {email: 'keys@example.test', first_name: 'K', last_name: 'Eys'})
    const other = await api('/users', {email: 'keys2@example.test', first_name: 'K', last_name: 'Two'})
    const from = await api('/wallets', {userId: user, currency: 'USD', initialBalance: 100_000})
    const to = await api('/wallets', {userId: other, currency: 'USD', initialBalance: 0})

    const run = `${SEED}-${Date.now().toString(36)}`
    const transfers = Array.from({length: 6}, (_, i) => `fault-transfer-${run}-${i}`)
    const deposits = Array.from({length: 2}, (_, i) => `fault-deposit-${run}-${i}`)
    // Three keys whose every attempt fails, to see the error a user gets when retries run out: the
    // service acted each time (drop after forwarding, truncated body) or never heard (503).
    const doomed = new Map<string, Fault>([
      [`fault-doomed-${run}-drop`, 'drop-after-forward'],
      [`fault-doomed-${run}-truncate`, 'truncate'],
      [`fault-doomed-${run}-503`, {status: 503, body: ''}],
    ])
    const random = seededFaults(SEED, {
      pass: 45,
      dropBefore: 8,
      dropAfterForward: 12,
      truncate: 12,
      delay: 5,
      status502: 6,
      status503: 6,
      status429: 6,
    })
    const doomedSeen = new Map<string, number>()
    const heavy = await startFaultProxy(sandbox.url, (req) => {
      const key = req.headers['idempotency-key']
      const fault = typeof key === 'string' ? doomed.get(key) : undefined
      // The doomed keys fail through every retry of their first invocation only.
      if (fault !== undefined) {
        const n = doomedSeen.get(key as string) ?? 0
        doomedSeen.set(key as string, n + 1)
        if (n < 4) return fault
      }
      return req.method === 'POST' && req.url === '/v1/transactions' ? random(req) : 'pass'
    })
    const create = (key: string, ...args: string[]) =>
      payctl(['transactions', 'create', ...args, '--idempotency-key', key, '--json'], {
        configDir: sandbox.configDir,
        env: {PAYCTL_BASE_URL: heavy.url},
        timeoutMs: 60_000,
        wait: retryAtOnce,
      })
    /** Through the same random faults, a repeat may take more than one invocation too. */
    const createUntilDone = async (key: string, ...args: string[]) => {
      let r = await create(key, ...args)
      for (let n = 0; r.exitCode !== 0 && n < 7; n++) {
        expect([1, 5], `${key}: ${r.stdout}`).toContain(r.exitCode)
        r = await create(key, ...args)
      }
      expect(r.exitCode, `${key} never succeeded: ${r.stdout} (PAYCTL_FAULT_SEED=${SEED})`).toBe(0)
      return r.json<{id: string}>().id
    }
    const transferArgs = ['--method', 'wallet', '--amount', '1.00USD', '--from', from, '--to', to]
    const depositArgs = [
      '--method',
      'card',
      '--amount',
      '5.00USD',
      '--to',
      from,
      '--payment-method',
      'pm_card_visa',
    ]
    const jobs = [
      ...transfers.map((key) => ({key, args: transferArgs})),
      ...[...doomed.keys()].map((key) => ({key, args: transferArgs})),
      ...deposits.map((key) => ({key, args: depositArgs})),
    ]
    const ids = new Map<string, string>()
    const failures: CliResult[] = []
    try {
      // Six invocations at a time (most of their time is retry backoff); each key is repeated
      // until it succeeds.
      const queue = [...jobs]
      await Promise.all(
        Array.from({length: 6}, async () => {
          for (let job = queue.shift(); job; job = queue.shift()) {
            for (let attempt = 0; ; attempt++) {
              expect(attempt, `${job.key} never succeeded (PAYCTL_FAULT_SEED=${SEED})`).toBeLessThan(8)
              const r = await create(job.key, ...job.args)
              if (r.exitCode === 0) {
                ids.set(job.key, r.json<{id: string}>().id)
                break
              }
              failures.push(r)
              const error = r.json<{
                error: {code: string; message: string; exitCode: number; details?: {idempotencyKey?: string}}
              }>().error
              const context = `${job.key}: ${r.stdout}\n${r.stderr}\nPAYCTL_FAULT_SEED=${SEED}`
              expect(error.code, context).toMatch(/^[A-Z][A-Z0-9_]+$/)
              expect([1, 5], context).toContain(r.exitCode)
              expect(error.exitCode, context).toBe(r.exitCode)
              expect(r.stderr, context).not.toMatch(STACK_LINE)
              // An unknown outcome tells the user how to repeat it safely.
              if (r.exitCode === 1) {
                expect(error.message, context).toContain('may or may not have been applied')
                expect(error.details?.idempotencyKey, context).toBe(job.key)
              }
            }
          }
        }),
      )
      // The human form of the same failure, on stderr.
      const doomedAgain = `fault-doomed-${run}-again`
      doomed.set(doomedAgain, 'drop-after-forward')
      const human = await payctl(
        ['transactions', 'create', ...transferArgs, '--idempotency-key', doomedAgain],
        {
          configDir: sandbox.configDir,
          env: {PAYCTL_BASE_URL: heavy.url},
          wait: retryAtOnce,
        },
      )
      expectClearFailure(human, 'transactions create, every attempt dropped')
      expect(human.stderr).toMatch(/^NETWORK_ERROR: .*may or may not have been applied/m)
      expect(human.stderr).toContain(`--idempotency-key ${doomedAgain}`)
      ids.set(doomedAgain, await createUntilDone(doomedAgain, ...transferArgs))
      // A key already used answers its first transaction again.
      await Promise.all(
        [transfers[0]!, deposits[0]!, [...doomed.keys()][0]!].map(async (key) => {
          const args = key.includes('deposit') ? depositArgs : transferArgs
          expect(await createUntilDone(key, ...args)).toBe(ids.get(key))
        }),
      )
    } finally {
      await heavy.close()
    }
    console.info(
      `transactions create through faults: ${jobs.length + 1} keys, ${failures.length} failed invocations (${[
        ...new Set(failures.map((f) => f.json<{error: {code: string}}>().error.code)),
      ].join(', ')}), ${heavy.seen.length} requests`,
    )
    expect(failures.length).toBeGreaterThanOrEqual(3)

    // Exactly one transaction per key: the transfers out of `from`, and the card deposits into it.
    const transferCount = transfers.length + doomed.size
    expect(new Set(ids.values()).size).toBe(transferCount + deposits.length)
    const out = await listAll<{id: string; type: string}>('transactions', '--wallet', from)
    expect(out.filter((t) => t.type === 'transfer_out')).toHaveLength(transferCount)
    expect(out.filter((t) => t.type === 'deposit')).toHaveLength(deposits.length)
    const outIds = new Set(out.map((t) => t.id))
    for (const id of ids.values()) expect(outIds).toContain(id)
    const into = await listAll<{type: string}>('transactions', '--wallet', to)
    expect(into.filter((t) => t.type === 'transfer_in')).toHaveLength(transferCount)
    const balance = async (wallet: string) =>
      (await direct('wallets', 'get', wallet, '--json')).json<{balance: {total: number}}>().balance.total
    expect(await balance(to)).toBe(transferCount * 100)
  }, 180_000)
})
