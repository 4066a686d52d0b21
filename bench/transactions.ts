/**
 * Wallet-to-wallet POST /v1/transactions per second that the sandbox sustains, against the minimal
 * server (bench/minimal-server.ts: the same stack doing only the SQL of a transfer) driven by the
 * same load generator with the same connections and duration in the same run; and GET
 * /v1/wallets/{id} per second on the sandbox for comparison.
 *
 *   npm run bench:transactions
 *   node bench/transactions.ts --concurrency 50 --seconds 10 --wallets 16 --data file --runs 3
 *
 * Each server runs as its own process and the load generator (undici, one connection per request
 * under way, a fresh Idempotency-Key on each POST as payctl's client sends) in this one, so on a
 * 2-core machine each side gets a core. Rounds alternate between the two servers, so that a burst
 * of load from elsewhere hits both alike; each figure is the median of `--runs` rounds. Next to
 * it, the CPU time per request of each side, which a busy machine blurs less than requests per
 * second do. Not a test: it prints figures.
 */
import {randomUUID} from 'node:crypto'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {Pool} from 'undici'
import {
  type BenchServer,
  type LoadResult,
  load,
  median,
  ROOT,
  startSandbox,
  startServer,
  verdict,
} from './lib.ts'

const {values} = parseArgs({
  options: {
    concurrency: {type: 'string', default: '50'},
    seconds: {type: 'string', default: '10'},
    wallets: {type: 'string', default: '16'},
    data: {type: 'string', default: 'file'},
    runs: {type: 'string', default: '3'},
  },
})
const concurrency = Number(values.concurrency)
const seconds = Number(values.seconds)
const runs = Number(values.runs)
const walletCount = Number(values.wallets)
const dataFile = (name: string) =>
  values.data === 'file'
    ? join(process.env.TMPDIR ?? '/tmp', `payctl-bench-${name}-${process.pid}.db`)
    : ':memory:'

const secretKey = `test_bench_${randomUUID().replaceAll('-', '')}`
const sandbox = await startSandbox(['--data', dataFile('sandbox')], {PAYCTL_SANDBOX_SECRET_KEY: secretKey})
const minimal = await startServer(join(ROOT, 'bench', 'minimal-server.ts'), [
  dataFile('minimal'),
  String(walletCount),
])

/** A target: its pool, and its POST /v1/transactions and GET of a wallet as load operations. */
function target(url: string, wallets: string[]) {
  const pool = new Pool(url, {connections: concurrency})
  const headers = {authorization: `Bearer ${secretKey}`, 'content-type': 'application/json'}
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await pool.request({
      method,
      path,
      headers: method === 'POST' ? {...headers, 'idempotency-key': randomUUID()} : headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.body.text()
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`)
    return text
  }
  return {
    pool,
    send,
    transfer: (w: number, i: number) => {
      const from = (w + i) % wallets.length
      const to = (from + 1 + (i % (wallets.length - 1))) % wallets.length
      return send('POST', '/v1/transactions', {
        amount: 100,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: wallets[from],
        destinationWalletId: wallets[to],
      })
    },
    read: (w: number, i: number) => send('GET', `/v1/wallets/${wallets[(w + i) % wallets.length]}`),
  }
}

try {
  const setup = target(sandbox.url, [])
  const sandboxWallets: string[] = []
  for (let i = 0; i < walletCount; i++) {
    const user = JSON.parse(
      await setup.send('POST', '/v1/users', {
        email: `bench${i}@example.test`,
        first_name: 'B',
        last_name: `N${i}`,
      }),
    )
    const wallet = JSON.parse(
      await setup.send('POST', '/v1/wallets', {
        userId: (user.data ?? user).id,
        currency: 'USD',
        initialBalance: 10_000_000,
      }),
    )
    sandboxWallets.push((wallet.data ?? wallet).id)
  }
  await setup.pool.close()
  const onSandbox = target(sandbox.url, sandboxWallets)
  const onMinimal = target(
    minimal.url,
    Array.from({length: walletCount}, (_, i) => `wal_${i}`),
  )

  const measure = (side: BenchServer, op: (w: number, i: number) => Promise<unknown>) =>
    load(concurrency, seconds, op, side.cpuSeconds, side.mainThreadCpuSeconds)
  const sandboxTransfers: LoadResult[] = []
  const minimalTransfers: LoadResult[] = []
  const reads: LoadResult[] = []
  for (let r = 0; r < runs; r++) {
    sandboxTransfers.push(await measure(sandbox, onSandbox.transfer))
    minimalTransfers.push(await measure(minimal, onMinimal.transfer))
    reads.push(await measure(sandbox, onSandbox.read))
  }

  const fixed = (v: number, width: number, digits = 0) => v.toFixed(digits).padStart(width)
  const m = (rs: LoadResult[], f: (r: LoadResult) => number) => median(rs.map(f))
  const row = (name: string, rs: LoadResult[]) =>
    `  ${name.padEnd(40)} ${fixed(
      m(rs, (r) => r.perSecond),
      6,
    )}/s   p50 ${fixed(
      m(rs, (r) => r.p50),
      5,
      1,
    )} ms   p99 ${fixed(
      m(rs, (r) => r.p99),
      6,
      1,
    )} ms   CPU/request: server ${fixed(
      m(rs, (r) => r.serverCpuUs),
      4,
    )} µs (main thread ${fixed(
      m(rs, (r) => r.serverMainUs),
      4,
    )} µs), load ${fixed(
      m(rs, (r) => r.clientCpuUs),
      4,
    )} µs   failed ${rs.reduce((n, r) => n + r.failed, 0)}`
  console.log(
    `transfers: ${concurrency} connections, ${walletCount} wallets, data ${values.data}; median of ${runs} rounds of ${seconds} s (Node ${process.version})`,
  )
  console.log(row('sandbox POST /v1/transactions (wallet)', sandboxTransfers))
  console.log(row('minimal server POST /v1/transactions', minimalTransfers))
  console.log(row('sandbox GET /v1/wallets/{id}', reads))
  console.log(
    `  per round, POST/s: sandbox ${sandboxTransfers.map((r) => r.perSecond.toFixed(0)).join(', ')}; minimal ${minimalTransfers.map((r) => r.perSecond.toFixed(0)).join(', ')}`,
  )
  const ratio = m(sandboxTransfers, (r) => r.perSecond) / m(minimalTransfers, (r) => r.perSecond)
  const p99 = m(sandboxTransfers, (r) => r.p99) / m(minimalTransfers, (r) => r.p99)
  console.log(verdict('sandbox transfers / minimal server', `${ratio.toFixed(2)}×`, '≥ 0.7×', ratio >= 0.7))
  console.log(
    verdict('sandbox transfer p99 / minimal server p99', `${p99.toFixed(2)}×`, '≤ 1.5×', p99 <= 1.5),
  )
  const firstError = [...sandboxTransfers, ...minimalTransfers, ...reads].find(
    (r) => r.firstError !== undefined,
  )?.firstError
  if (firstError !== undefined) console.log('first error:', firstError)
  await Promise.all([onSandbox.pool.close(), onMinimal.pool.close()])
} finally {
  await Promise.all([sandbox.stop(), minimal.stop()])
  for (const name of ['sandbox', 'minimal'])
    for (const suffix of ['', '-wal', '-shm']) rmSync(dataFile(name) + suffix, {force: true})
}
process.exit(0)
