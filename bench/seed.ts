/**
 * `payctl seed` against a local sandbox with its rate limit off: records per second and the CLI's
 * peak memory for 10,000 records (users, wallets, transactions), next to the same kind of record
 * created by a shell loop of single payctl invocations. Each run gets a fresh sandbox; figures are
 * the median of `--runs`. Records per second count the whole command, start-up included.
 *
 *   npm run bench:seed
 *   node bench/seed.ts --records 10000 --concurrency 32 --loop 20 --runs 3
 *
 * Not a test: it prints figures.
 */
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {BIN, median, ROOT, startSandbox, verdict} from './lib.ts'

const {values} = parseArgs({
  options: {
    records: {type: 'string', default: '10000'},
    concurrency: {type: 'string', default: '32'},
    loop: {type: 'string', default: '20'},
    runs: {type: 'string', default: '3'},
  },
})
// Each transfer goes from wallet i to wallet i+1, so there is one fewer transfer than wallets at most.
const total = Number(values.records)
const perKind = Math.ceil((total + 1) / 3)
const fixtureText = `name: bench
users:
  u:
    count: ${perKind}
    email: u{{n}}@example.test
    first_name: Bench
    last_name: U{{n}}
wallets:
  w:
    count: ${perKind}
    user: \${users.u[{{i}}].id}
    currency: USD
    initial_balance: 100.00USD
transactions:
  t:
    count: ${total - 2 * perKind}
    method: wallet
    amount: 1.00USD
    from: \${wallets.w[{{i}}].id}
    to: \${wallets.w[{{n}}].id}
`

interface SeedRun {
  seconds: number
  peakMb: number
  cpuSeconds: number
}

async function seedOnce(): Promise<SeedRun> {
  const sandbox = await startSandbox(['--data', ':memory:'])
  try {
    const fixture = join(sandbox.configDir, 'bench.yaml')
    writeFileSync(fixture, fixtureText)
    const usageFile = join(sandbox.configDir, 'usage.json')
    const env = {
      ...sandbox.env,
      NODE_OPTIONS: `--import=${join(ROOT, 'bench', 'report-rss.mjs')}`,
      PAYCTL_BENCH_RSS_FILE: usageFile,
    }
    const started = performance.now()
    const seed = spawnSync(
      process.execPath,
      [BIN, 'seed', fixture, '--concurrency', values.concurrency, '--rate', 'off', '--json'],
      {env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024},
    )
    const seconds = (performance.now() - started) / 1000
    if (seed.status !== 0)
      throw new Error(
        `seed failed (${seed.status} ${seed.signal ?? ''} ${seed.error ?? ''}): ${seed.stderr}${seed.stdout.slice(0, 2000)}`,
      )
    const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as {maxRssKb: number; cpuUs: number}
    return {seconds, peakMb: usage.maxRssKb / 1024, cpuSeconds: usage.cpuUs / 1e6}
  } finally {
    await sandbox.stop()
  }
}

const runs: SeedRun[] = []
for (let r = 0; r < Number(values.runs); r++) runs.push(await seedOnce())

const sandbox = await startSandbox(['--data', ':memory:'])
let loopPerSecond: number
try {
  const loops = Number(values.loop)
  const loopStarted = performance.now()
  for (let i = 0; i < loops; i++) {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'users',
        'create',
        '--email',
        `loop${i}@example.test`,
        '--first-name',
        'L',
        '--last-name',
        `N${i}`,
      ],
      {env: sandbox.env, encoding: 'utf8'},
    )
    if (r.status !== 0) throw new Error(`users create failed: ${r.stderr}`)
  }
  loopPerSecond = loops / ((performance.now() - loopStarted) / 1000)
} finally {
  await sandbox.stop()
}

const seconds = median(runs.map((r) => r.seconds))
console.log(
  `payctl seed, ${total} records (${perKind} users, ${perKind} wallets, ${total - 2 * perKind} transfers), concurrency ${values.concurrency}; median of ${runs.length} runs`,
)
console.log(
  `  seed:       ${(total / seconds).toFixed(0).padStart(6)} records/s   ${seconds.toFixed(1)} s   peak memory ${median(runs.map((r) => r.peakMb)).toFixed(0)} MB   CPU ${median(runs.map((r) => r.cpuSeconds)).toFixed(1)} s`,
)
console.log(
  `  per run:    ${runs.map((r) => `${(total / r.seconds).toFixed(0)}/s ${r.peakMb.toFixed(0)} MB`).join(', ')}`,
)
console.log(
  `  shell loop: ${loopPerSecond.toFixed(1).padStart(6)} records/s   (${values.loop} single \`payctl users create\` invocations)`,
)
const perSecond = total / seconds
const peakMb = median(runs.map((r) => r.peakMb))
console.log(verdict(`seed of ${total} records`, `${perSecond.toFixed(0)}/s`, '≥ 2,000/s', perSecond >= 2000))
console.log(verdict('seed peak memory', `${peakMb.toFixed(0)} MB`, '≤ 150 MB', peakMb <= 150))
process.exit(0)
