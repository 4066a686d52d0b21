/**
 * Wallet-to-wallet POST /transactions per second that the sandbox sustains through payctl's own
 * client, with N requests under way at once; and GET /wallets/{id} per second for comparison.
 *
 *   npm run bench:transactions
 *   node bench/transactions.ts --concurrency 50 --seconds 10 --wallets 16 --data file
 *
 * The sandbox runs as its own process (`payctl sandbox start`), the client in this one, so on a
 * 2-core machine each gets a core. Not a test: it prints figures.
 */
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {connect} from '../dist/index.js'
import {load, startSandbox} from './lib.ts'

const {values} = parseArgs({
  options: {
    concurrency: {type: 'string', default: '50'},
    seconds: {type: 'string', default: '10'},
    wallets: {type: 'string', default: '16'},
    data: {type: 'string', default: 'memory'},
  },
})
const concurrency = Number(values.concurrency)
const seconds = Number(values.seconds)

const sandbox = await startSandbox([
  '--data',
  values.data === 'file' ? join(process.env.TMPDIR ?? '/tmp', `payctl-bench-${process.pid}.db`) : ':memory:',
])
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

  const transfers = await load(concurrency, seconds, (w, i) => {
    const [source, destination] = pair(w, i)
    return client.transactions.create({
      amount: 100,
      currency: 'USD',
      method: 'wallet',
      sourceWalletId: source,
      destinationWalletId: destination,
    })
  })
  const reads = await load(concurrency, seconds, (w, i) =>
    client.wallets.get(wallets[(w + i) % wallets.length]!),
  )

  const row = (name: string, r: Awaited<ReturnType<typeof load>>) =>
    `${name.padEnd(28)} ${r.perSecond.toFixed(0).padStart(7)}/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   failed ${r.failed}`
  console.log(
    `payctl sandbox, ${concurrency} concurrent requests, ${seconds} s each, ${wallets.length} wallets, data ${values.data}`,
  )
  console.log(row('POST /v1/transactions (wallet)', transfers))
  console.log(row('GET /v1/wallets/{id}', reads))
  if (transfers.firstError || reads.firstError)
    console.log('first error:', transfers.firstError ?? reads.firstError)
} finally {
  await sandbox.stop()
}
process.exit(0)
