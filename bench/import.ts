/**
 * `payctl sandbox import` of a customer with 10,000 transactions from one sandbox process into
 * another (data files, rate limit off): the whole command, from its start to its exit, reading
 * every page of the source's transactions, ledger and events, redacting them and loading the story
 * in one request. Prints wall time, the command's peak memory and the target sandbox's (which
 * parses, checks and writes the story), with the machine's load.
 *
 *   npm run bench:import
 *   node bench/import.ts --transactions 10000 --runs 3
 *
 * Not a test: it prints figures. Targets: ≤ 10 s, and ≤ 200 MB for the command and for the target
 * sandbox, on the project's 2-core machine.
 */
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {loadavg} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'
import {BIN, median, ROOT, seedUser, startSandbox, verdict} from './lib.ts'

const {values} = parseArgs({
  options: {
    transactions: {type: 'string', default: '10000'},
    runs: {type: 'string', default: '3'},
    concurrency: {type: 'string', default: '32'},
  },
})
const TRANSACTIONS = Number(values.transactions)
const TARGET_S = 10
const TARGET_MB = 200

type Store = {read(): {profiles: Record<string, {auth: unknown}>}}
const lib = (await import(pathToFileURL(join(ROOT, 'dist', 'index.js')).href)) as {
  ProfileStore: new (dir: string) => Store
  saveLocalProfile: (store: Store, name: string, url: string, auth: unknown) => Promise<void>
}

const source = await startSandbox()
const target = await startSandbox()
try {
  const seeding = performance.now()
  const user = await seedUser(source.configDir, TRANSACTIONS, Number(values.concurrency))
  console.log(
    `${TRANSACTIONS} card top-ups of one user in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
  )
  // The source as a profile of the target's config dir, whose current profile is the target.
  const auth = new lib.ProfileStore(source.configDir).read().profiles.local!.auth
  await lib.saveLocalProfile(new lib.ProfileStore(target.configDir), 'source', source.url, auth)
  const usageFile = join(target.configDir, 'usage.json')
  const env = {
    ...target.env,
    NODE_OPTIONS: `--import=${join(ROOT, 'bench', 'report-rss.mjs')}`,
    PAYCTL_BENCH_RSS_FILE: usageFile,
  }
  const seconds: number[] = []
  const peaks: number[] = []
  let targetPeak: number | undefined
  for (let run = 0; run < Number(values.runs); run++) {
    const started = performance.now()
    const r = spawnSync(
      process.execPath,
      [BIN, 'sandbox', 'import', '--from', 'source', '--user', user, '--json'],
      {
        env,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    )
    const took = (performance.now() - started) / 1000
    if (r.status !== 0) throw new Error(`sandbox import exited with ${r.status}: ${r.stderr}`)
    const result = JSON.parse(r.stdout) as {
      counts: {transactions: number; events: number; ledgerEntries: number}
    }
    const peak = (JSON.parse(readFileSync(usageFile, 'utf8')) as {maxRssKb: number}).maxRssKb / 1024
    const {transactions, events, ledgerEntries} = result.counts
    console.log(
      `run ${run + 1}: ${took.toFixed(2)} s, peak ${peak.toFixed(0)} MB (${transactions} transactions, ${ledgerEntries} ledger entries, ${events} events)`,
    )
    seconds.push(took)
    peaks.push(peak)
    // The target sandbox's own peak after the first run, one import into a fresh sandbox: the later
    // runs load the story again beside the earlier ones.
    if (run === 0) {
      targetPeak = processPeakMb(target.pid)
      if (targetPeak !== undefined) console.log(`  target sandbox's peak: ${targetPeak.toFixed(0)} MB`)
    }
  }
  const load = loadavg().map((l) => l.toFixed(2))
  console.log(`\nload average (1, 5, 15 min): ${load.join(', ')}`)
  console.log('Targets:')
  const s = median(seconds)
  const mb = Math.max(...peaks)
  console.log(
    verdict(
      'sandbox import, 10,000 transactions',
      `${s.toFixed(2)} s (median)`,
      `≤ ${TARGET_S} s`,
      s <= TARGET_S,
    ),
  )
  console.log(
    verdict(
      'sandbox import, peak memory',
      `${mb.toFixed(0)} MB (most)`,
      `≤ ${TARGET_MB} MB`,
      mb <= TARGET_MB,
    ),
  )
  if (targetPeak !== undefined)
    console.log(
      verdict(
        'sandbox import, target sandbox peak memory (one import, fresh sandbox)',
        `${targetPeak.toFixed(0)} MB`,
        `≤ ${TARGET_MB} MB`,
        targetPeak <= TARGET_MB,
      ),
    )
} finally {
  await Promise.all([source.stop(), target.stop()])
}

/** The most memory process `pid` has held so far (VmHWM, Linux), in MB; undefined elsewhere. */
function processPeakMb(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}
