/**
 * `payctl users inspect` for a user with 10,000 transactions, as a whole process against a local
 * sandbox (data file, rate limit off): how long until its first screen is on stdout (the first
 * line of the timeline, in a table and in `--output ndjson`), and until it has printed the whole
 * timeline. The timeline streams: the first screen needs only the first page of each source.
 *
 *   npm run bench:inspect
 *   node bench/inspect.ts --transactions 10000 --runs 5
 *
 * Each case runs once first (compile cache, file cache, the sandbox's statements), then the cases
 * take turns `--runs` times. Figures are medians of wall time. Not a test: it prints figures.
 */
import {spawn} from 'node:child_process'
import {parseArgs} from 'node:util'
import {BIN, median, seedUser, startSandbox, verdict} from './lib.ts'

const {values} = parseArgs({
  options: {
    transactions: {type: 'string', default: '10000'},
    runs: {type: 'string', default: '5'},
    concurrency: {type: 'string', default: '32'},
  },
})
const TRANSACTIONS = Number(values.transactions)
const FIRST_SCREEN_TARGET_S = 1

/** Seconds until the first timeline line is on stdout, and until the process ends; and the lines. */
function inspect(env: NodeJS.ProcessEnv, args: string[], isLine: (line: string) => boolean) {
  return new Promise<{first: number; end: number; lines: number}>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [BIN, 'users', 'inspect', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let first = Number.NaN
    let lines = 0
    let rest = ''
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c))
    child.stdout.on('data', (c: Buffer) => {
      const parts = (rest + c.toString()).split('\n')
      rest = parts.pop()!
      for (const line of parts) {
        if (!isLine(line)) continue
        if (lines === 0) first = (performance.now() - started) / 1000
        lines++
      }
    })
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`users inspect exited with ${code}: ${err}`))
      else resolve({first, end: (performance.now() - started) / 1000, lines})
    })
  })
}

async function main(): Promise<void> {
  const sandbox = await startSandbox()
  try {
    const seeding = performance.now()
    const user = await seedUser(sandbox.configDir, TRANSACTIONS, Number(values.concurrency))
    console.log(
      `${TRANSACTIONS} card top-ups of one user in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    )
    const cases = {
      // With the events as lines of their own: the most lines a timeline of these top-ups has.
      'users inspect --events (table)': () =>
        inspect(sandbox.env, [user, '--events'], (l) => / txn_\w+\s*$| evt_\w+\s*$/.test(l)),
      'users inspect --events --output ndjson': () =>
        inspect(sandbox.env, [user, '--events', '--output', 'ndjson'], (l) => l.startsWith('{')),
    }
    const figures = new Map<string, {first: number[]; end: number[]; lines: number}>()
    for (const run of Object.values(cases)) await run() // warm-up
    for (let i = 0; i < Number(values.runs); i++) {
      for (const [name, run] of Object.entries(cases)) {
        const r = await run()
        const f = figures.get(name) ?? {first: [], end: [], lines: r.lines}
        f.first.push(r.first)
        f.end.push(r.end)
        figures.set(name, f)
      }
    }
    console.log()
    for (const [name, f] of figures)
      console.log(
        `${name.padEnd(32)} first screen ${median(f.first).toFixed(2)} s   whole timeline ${median(f.end).toFixed(2)} s   ${f.lines} lines`,
      )
    console.log('\nTargets:')
    for (const [name, f] of figures) {
      const first = median(f.first)
      console.log(
        verdict(
          `${name}, first screen`,
          `${first.toFixed(2)} s`,
          `≤ ${FIRST_SCREEN_TARGET_S} s`,
          first <= FIRST_SCREEN_TARGET_S,
        ),
      )
    }
  } finally {
    await sandbox.stop()
  }
}

await main()
