/**
 * Creating partners on a running sandbox: how long `POST /_sandbox/partners` takes, measured at the
 * HTTP client on the same machine (the sandbox's answer, not the CLI's start-up), on a data file
 * that already serves `--existing` partners. Also how long a partner's first request takes with
 * its new credentials.
 *
 *   npm run bench:partners
 *   node bench/partners.ts --existing 200 --create 100
 *
 * Not a test: it prints figures.
 */
import {parseArgs} from 'node:util'
import {median, percentile, startSandbox, verdict} from './lib.ts'

const {values} = parseArgs({
  options: {existing: {type: 'string', default: '200'}, create: {type: 'string', default: '100'}},
})
const SECRET = `test_${'b'.repeat(48)}`

async function timed<T>(fn: () => Promise<T>): Promise<{ms: number; value: T}> {
  const started = performance.now()
  const value = await fn()
  return {ms: performance.now() - started, value}
}

// Its data file is the config dir's own, on disk, as a team's sandbox keeps it.
const sandbox = await startSandbox(['--secret-key', SECRET])
try {
  const create = async (name: string) => {
    const res = await fetch(`${sandbox.url}/_sandbox/partners`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${SECRET}`,
        'content-type': 'application/json',
        'idempotency-key': name,
      },
      body: JSON.stringify({name}),
    })
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${await res.text()}`)
    return (await res.json()) as {secretKey: string}
  }
  for (let i = 0; i < Number(values.existing); i++) await create(`existing-${i}`)
  const creations: number[] = []
  const firstCalls: number[] = []
  for (let i = 0; i < Number(values.create); i++) {
    const made = await timed(() => create(`bench-${i}`))
    creations.push(made.ms)
    const first = await timed(() =>
      fetch(`${sandbox.url}/v1/wallets`, {headers: {authorization: `Bearer ${made.value.secretKey}`}}).then(
        (r) => r.text(),
      ),
    )
    firstCalls.push(first.ms)
  }
  const sorted = [...creations].sort((a, b) => a - b)
  const p95 = percentile(sorted, 95)
  console.log(
    `partners: ${values.create} created one after another, on a data file with ${values.existing} already`,
  )
  console.log(
    `  create  median ${median(creations).toFixed(1)} ms  p95 ${p95.toFixed(1)} ms  max ${sorted.at(-1)!.toFixed(1)} ms`,
  )
  console.log(`  first request with the new credentials: median ${median(firstCalls).toFixed(1)} ms`)
  console.log(verdict('creating a partner, p95', `${p95.toFixed(1)} ms`, '≤ 50 ms', p95 <= 50))
} finally {
  await sandbox.stop()
}
