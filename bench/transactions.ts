/**
 * Wallet-to-wallet POST /transactions per second that the sandbox sustains through payctl's own
 * client, with N requests under way at once; and GET /wallets/{id} per second for comparison.
 *
 *   npm run bench:transactions
 *   node bench/transactions.ts --concurrency 50 --seconds 10 --wallets 16 --data file --runs 3
 *
 * The sandbox runs as its own process (`payctl sandbox start`), the client in this one, so on a
 * 2-core machine each gets a core. Each figure is the median of `--runs` rounds; next to it, the
 * CPU time per request of each side (the sandbox's read from /proc), which a busy machine blurs
 * less than requests per second do. Not a test: it prints figures.
 */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {connect} from '../dist/index.js'
import {type LoadResult, load, median, startSandbox} from './lib.ts'

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

const dataFile = join(process.env.TMPDIR ?? '/tmp', `payctl-bench-${process.pid}.db`)
const sandbox = await startSandbox(['--data', values.data === 'file' ? dataFile : ':memory:'])
process.env.PAYCTL_CONFIG_DIR = sandbox.configDir
try {
  const client = connect({profile: 'local'})
  const wallets: string[] = []
  for (let i = 0; i < Number(values.wallets); i++) {
    const user = await client.users.create({
      email: `bench${i}@example.test`,
      first_name: 'Bench',
      last_name: `N${i}`,
    })
    wallets.push(
      (await client.wallets.create({userId: user.id, currency: 'USD', initialBalance: 1_000_000_000})).id,
    )
  }
  const pair = (w: number, i: number) => {
    const from = (w + i) % wallets.length
    return [wallets[from]!, wallets[(from + 1 + (i % (wallets.length - 1))) % wallets.length]!] as const
  }

  const transfer = (w: number, i: number) => {
    const [source, destination] = pair(w, i)
    return client.transactions.create({
      amount: 100,
      currency: 'USD',
      method: 'wallet',
      sourceWalletId: source,
      destinationWalletId: destination,
    })
  }
  const read = (w: number, i: number) => client.wallets.get(wallets[(w + i) % wallets.length]!)
  // Rounds alternate, so that a burst of load from elsewhere on the machine hits both alike.
  const transfers: LoadResult[] = []
  const reads: LoadResult[] = []
  for (let r = 0; r < runs; r++) {
    transfers.push(await load(concurrency, seconds, transfer, sandbox.cpuSeconds))
    reads.push(await load(concurrency, seconds, read, sandbox.cpuSeconds))
  }

  const fixed = (v: number, width: number, digits = 0) => v.toFixed(digits).padStart(width)
  const row = (name: string, rs: LoadResult[]) => {
    const m = (f: (r: LoadResult) => number) => median(rs.map(f))
    return `${name.padEnd(31)} ${fixed(
      m((r) => r.perSecond),
      6,
    )}/s   p50 ${fixed(
      m((r) => r.p50),
      5,
      1,
    )} ms   p99 ${fixed(
      m((r) => r.p99),
      6,
      1,
    )} ms   CPU/request: sandbox ${fixed(
      m((r) => r.serverCpuUs),
      4,
    )} µs, client ${fixed(
      m((r) => r.clientCpuUs),
      4,
    )} µs   failed ${rs.reduce((n, r) => n + r.failed, 0)}`
  }
  console.log(
    `payctl sandbox, ${concurrency} concurrent requests, ${wallets.length} wallets, data ${values.data}; median of ${runs} rounds of ${seconds} s`,
  )
  console.log(row('POST /v1/transactions (wallet)', transfers))
  console.log(row('GET /v1/wallets/{id}', reads))
  console.log(`  per round (POST/s): ${transfers.map((r) => r.perSecond.toFixed(0)).join(', ')}`)
  const firstError = [...transfers, ...reads].find((r) => r.firstError !== undefined)?.firstError
  if (firstError !== undefined) console.log('first error:', firstError)
} finally {
  await sandbox.stop()
  for (const suffix of ['', '-wal', '-shm']) rmSync(dataFile + suffix, {force: true})
}
process.exit(0)
