import {randomUUID} from 'node:crypto'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {type CliResult, payctl, tempConfigDir} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'
import {query} from '../service/helpers.js'

const WALLETS = 16
const INITIAL = 1_000_000n // 10,000.00 USD each
const LOOPS = 24 // requests under way at once
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Wait until `condition` holds, looking every 10 ms; `what` says what never came, past the deadline. */
async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await sleep(10)
  }
}

interface Operation {
  key: string
  body: Record<string, unknown>
  /** The acknowledged transaction (the service answered 201, perhaps as a replay). */
  ack?: {id: string; type: string; netAmount: number; amount: number}
  /** How many times the connection failed before an answer came. */
  unanswered: number
}

// Rounds of kill -9 and restart, each a few processes: on a runner far busier than eight CPU-bound
// processes beside two cores, the whole run has taken over two minutes.
describe('the sandbox killed with SIGKILL and restarted on the same data file during concurrent transfers', {
  timeout: 300_000,
}, () => {
  const temp = tempConfigDir()
  const data = join(temp.dir, 'sandbox.db')
  let sandbox: SandboxProcess | undefined
  afterAll(async () => {
    await sandbox?.stop()
    temp.cleanup()
  })

  it('loses no acknowledged transaction, applies none twice or by half, and the ledger still balances', async () => {
    const port = await freePort()
    const start = () => startSandboxProcess(['--quiet'], {configDir: temp.dir, data, port})
    sandbox = await start()
    const url = sandbox.url
    const auth = {authorization: `Bearer ${sandbox.credentials.secretKey}`}
    const post = async (path: string, body: unknown, key?: string) => {
      const res = await fetch(`${url}/v1${path}`, {
        method: 'POST',
        headers: {...auth, 'content-type': 'application/json', ...(key ? {'idempotency-key': key} : {})},
        body: JSON.stringify(body),
      })
      return {status: res.status, body: (await res.json()) as {data?: Record<string, unknown>}}
    }
    const wallets: string[] = []
    for (let i = 0; i < WALLETS; i++) {
      const user = await post('/users', {email: `k${i}@example.test`, first_name: 'K', last_name: `${i}`})
      const wallet = await post('/wallets', {
        userId: user.body.data!.id,
        currency: 'USD',
        initialBalance: Number(INITIAL),
      })
      expect(wallet.status).toBe(201)
      wallets.push(wallet.body.data!.id as string)
    }

    // Clients that behave as payctl does: every operation has its key, and a request that got no
    // answer is sent again with the same key until one comes.
    const operations: Operation[] = []
    let stopping = false
    let n = 0
    const nextOperation = (): Operation => {
      n++
      const a = wallets[n % WALLETS]!
      const b = wallets[(n * 7 + 3) % WALLETS]!
      const body =
        n % 10 === 0 || a === b
          ? {
              method: 'card',
              amount: 1000 + (n % 9) * 100,
              currency: 'USD',
              destinationWalletId: a,
              paymentMethodId: 'pm_card_visa',
            }
          : {
              method: 'wallet',
              amount: 50 + (n % 17) * 10,
              currency: 'USD',
              sourceWalletId: a,
              destinationWalletId: b,
            }
      const op: Operation = {key: `crash-${randomUUID()}`, body, unanswered: 0}
      operations.push(op)
      return op
    }
    // Requests refused for want of a listener: sent while the sandbox was down.
    let refused = 0
    const settle = async (op: Operation) => {
      for (;;) {
        try {
          const r = await post('/transactions', op.body, op.key)
          expect(r.status, JSON.stringify(r.body)).toBe(201)
          const t = r.body.data as Operation['ack'] & {}
          op.ack = {id: t.id, type: t.type, netAmount: t.netAmount, amount: t.amount}
          return
        } catch (err) {
          if (err instanceof Error && err.name === 'AssertionError') throw err
          op.unanswered++
          if ((err as {cause?: {code?: string}}).cause?.code === 'ECONNREFUSED') refused++
          await sleep(50)
        }
      }
    }
    const loops = Array.from({length: LOOPS}, async () => {
      while (!stopping) await settle(nextOperation())
    })
    const acked = () => operations.filter((o) => o.ack).length

    // payctl moving money too, each transfer with a fixed key: run in this process, from src/, as
    // its retries and its errors are the command's own, not its process's.
    const cliKeys = Array.from({length: 3}, (_, i) => `crash-cli-${i}-${randomUUID()}`)
    const cliTransfer = (key: string, i: number) =>
      payctl(
        [
          'transactions',
          'create',
          '--method',
          'wallet',
          '--amount',
          '1.00USD',
          '--from',
          wallets[i]!,
          '--to',
          wallets[i + 1]!,
          '--idempotency-key',
          key,
          '--json',
        ],
        {configDir: temp.dir, env: {PAYCTL_SECRET_KEY: sandbox!.credentials.secretKey, PAYCTL_BASE_URL: url}},
      )

    const kills: {ackedBefore: number; inFlight: number}[] = []
    const cliRuns: Promise<CliResult>[] = []
    for (let round = 0; round < 2; round++) {
      const target = acked() + 300
      await until(() => acked() >= target, `${target} operations are acknowledged`)
      if (round === 0) {
        cliRuns.push(...cliKeys.map((key, i) => cliTransfer(key, i)))
        // Give the transfers time to get under way: as long as the clients take for 50 more.
        const more = acked() + 50
        await until(() => acked() >= more, `${more} operations are acknowledged`)
      }
      const before = acked()
      await sandbox.kill('SIGKILL')
      kills.push({ackedBefore: before, inFlight: operations.length - before})
      // Down until the clients have met the closed port: they keep retrying against it.
      const refusedBefore = refused
      await until(() => refused > refusedBefore, 'a client meets the closed port')
      sandbox = await start()
      expect(sandbox.url).toBe(url)
    }
    const target = acked() + 200
    await until(() => acked() >= target, `${target} operations are acknowledged`)
    stopping = true
    await Promise.all(loops)

    // The CLI's own retries may or may not outlast the outage; a failure is a clear error, and the
    // same command with the same key finishes the job.
    const cliIds = new Map<string, string>()
    for (const [i, run] of cliRuns.entries()) {
      let r = await run
      if (r.exitCode !== 0) {
        expect(r.exitCode, r.stdout).toBe(1)
        expect(r.json<{error: {code: string}}>().error.code).toBe('NETWORK_ERROR')
        expect(r.stderr).not.toMatch(/^\s+at .*\.js:\d+/m)
        r = await cliTransfer(cliKeys[i]!, i)
      }
      expect(r.exitCode, r.stdout + r.stderr).toBe(0)
      cliIds.set(cliKeys[i]!, r.json<{id: string}>().id)
    }
    await sandbox.stop()
    sandbox = undefined
    console.info(
      `crash and restart: ${operations.length} operations, kills with ${kills.map((k) => `${k.inFlight} in flight`).join(' and ')}, ${operations.filter((o) => o.unanswered > 0).length} operations resent after no answer`,
    )
    expect(operations.filter((o) => o.unanswered > 0).length).toBeGreaterThan(0)

    // Read the data file as an outside observer, after the sandbox has stopped.
    const txns = query(data, 'SELECT id, type, status, amount, net_amount, paired_id FROM transactions') as {
      id: string
      type: string
      status: string
      amount: string
      net_amount: string
      paired_id: string | null
    }[]
    const byId = new Map(txns.map((t) => [t.id, t]))
    // Every acknowledged transaction exists, completed; and nothing exists that was not
    // acknowledged (no operation applied twice, none applied without its answer being resent).
    const ackedIds = [...operations.map((o) => o.ack!.id), ...cliIds.values()]
    expect(new Set(ackedIds).size).toBe(ackedIds.length)
    for (const id of ackedIds) expect(byId.get(id)?.status, id).toBe('completed')
    const primary = txns.filter((t) => t.type === 'transfer_out' || t.type === 'deposit')
    expect(primary.map((t) => t.id).sort()).toEqual([...ackedIds].sort())
    // Each transfer has both halves.
    for (const t of txns.filter((t) => t.type === 'transfer_out')) {
      expect(byId.get(t.paired_id!)?.type, t.id).toBe('transfer_in')
      expect(byId.get(t.paired_id!)?.amount).toBe(t.amount)
    }
    expect(txns.filter((t) => t.type === 'transfer_in')).toHaveLength(
      txns.filter((t) => t.type === 'transfer_out').length,
    )

    // The ledger: every posting sums to zero, and every wallet's balance is the sum of its entries.
    const entries = query(data, 'SELECT transaction_id, account, amount FROM ledger_entries') as {
      transaction_id: string
      account: string
      amount: string
    }[]
    const perTransaction = new Map<string, bigint>()
    const perAccount = new Map<string, bigint>()
    for (const e of entries) {
      perTransaction.set(e.transaction_id, (perTransaction.get(e.transaction_id) ?? 0n) + BigInt(e.amount))
      perAccount.set(e.account, (perAccount.get(e.account) ?? 0n) + BigInt(e.amount))
    }
    for (const [id, sum] of perTransaction) expect(sum, `posting of ${id}`).toBe(0n)
    for (const t of txns.filter((t) => t.type !== 'transfer_in'))
      expect(perTransaction.has(t.id), `ledger entries of ${t.id}`).toBe(true)
    const rows = query(data, 'SELECT id, available, pending, reserved FROM wallets') as {
      id: string
      available: string
      pending: string
      reserved: string
    }[]
    let total = 0n
    for (const w of rows) {
      for (const bucket of ['available', 'pending', 'reserved'] as const) {
        expect(BigInt(w[bucket]), `${w.id}:${bucket}`).toBe(perAccount.get(`${w.id}:${bucket}`) ?? 0n)
      }
      total += BigInt(w.available) + BigInt(w.pending) + BigInt(w.reserved)
    }
    // Money is conserved: the wallets hold their opening balances plus what the card deposits
    // credited, as acknowledged to the clients; transfers only move it.
    const deposited = operations
      .filter((o) => o.ack!.type === 'deposit')
      .reduce((sum, o) => sum + BigInt(o.ack!.netAmount), 0n)
    expect(total).toBe(INITIAL * BigInt(WALLETS) + deposited)
  }, 120_000)
})
