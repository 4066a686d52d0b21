/**
 * Snapshots of a partner with 100,000 records: how long a save and a restore take (each one
 * request to a sandbox process), the sandbox's peak memory, and `payctl sandbox run
 * --from-snapshot FILE` until its command starts, beside `sandbox run --seed` of the same records
 * (seeding from scratch). The records are users, wallets and transfers between them, seeded once.
 *
 *   npm run bench:snapshots
 *   node bench/snapshots.ts --records 100000 --runs 3
 *
 * Not a test: it prints figures.
 */
import {spawnSync} from 'node:child_process'
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {BIN, median, startSandbox, verdict} from './lib.ts'

const {values} = parseArgs({
  options: {records: {type: 'string', default: '100000'}, runs: {type: 'string', default: '3'}},
})
const total = Number(values.records)
const perKind = Math.ceil((total + 1) / 3)
const fixture = (count: number) => `name: bench
users:
  u:
    count: ${count}
    email: u{{n}}@example.test
    first_name: Bench
    last_name: U{{n}}
wallets:
  w:
    count: ${count}
    user: \${users.u[{{i}}].id}
    currency: USD
    initial_balance: 100.00USD
transactions:
  t:
    count: ${count - 1}
    method: wallet
    amount: 1.00USD
    from: \${wallets.w[{{i}}].id}
    to: \${wallets.w[{{n}}].id}
`

/** The sandbox's peak resident memory since it started or since `resetPeak`, in MB (Linux); NaN elsewhere. */
function peakMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

/** Start measuring the process's peak memory afresh, from what it holds now (Linux). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

function payctl(args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [BIN, ...args], {env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})
  if (r.status !== 0) throw new Error(`payctl ${args.join(' ')} failed (${r.status}): ${r.stderr}`)
  return r.stdout
}

/** Seconds from starting `sandbox run` to its command's first line (the time it started, in ms). */
function untilCommand(args: string[], env: NodeJS.ProcessEnv): number {
  const started = Date.now()
  const out = payctl(
    ['sandbox', 'run', ...args, '--', process.execPath, '-e', 'console.log(Date.now())'],
    env,
  )
  return (Number(out.trim().split('\n').at(-1)) - started) / 1000
}

// On its default data file, as `sandbox start` runs it.
const sandbox = await startSandbox()
try {
  const file = join(sandbox.configDir, 'bench.yaml')
  writeFileSync(file, fixture(perKind))
  const seeded = performance.now()
  payctl(['seed', file, '--rate', 'off', '--concurrency', '32', '--json'], sandbox.env)
  const seedSeconds = (performance.now() - seeded) / 1000
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  const token = payctl(['auth', 'token'], sandbox.env).trim()
  const seedingPeak = peakMb(sandbox.pid)
  resetPeak(sandbox.pid)
  const saves: number[] = []
  const restores: number[] = []
  let saved: {records: number; bytes: number} | undefined
  for (let r = 0; r < Number(values.runs); r++) {
    let t = performance.now()
    saved = (await call('POST', '/_sandbox/snapshots', {name: 'bench'})) as {records: number; bytes: number}
    saves.push((performance.now() - t) / 1000)
    t = performance.now()
    await call('POST', '/_sandbox/snapshots/bench/restore')
    restores.push((performance.now() - t) / 1000)
  }
  const peak = peakMb(sandbox.pid)
  const snapshotFile = join(sandbox.configDir, 'bench.snapshot')
  payctl(['sandbox', 'snapshot', 'save', 'bench', '--file', snapshotFile], sandbox.env)
  const fromSnapshot = median(
    Array.from({length: Number(values.runs)}, () =>
      untilCommand(['--from-snapshot', snapshotFile], sandbox.env),
    ),
  )
  const fromScratch = untilCommand(['--seed', file], sandbox.env)

  const save = median(saves)
  const restore = median(restores)
  console.log(
    `snapshots of a partner with ${total} seeded records (${perKind} users, wallets and transfers): ${saved?.records} rows, ${((saved?.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB; median of ${values.runs} runs`,
  )
  console.log(`  seed from scratch:        ${seedSeconds.toFixed(1)} s`)
  console.log(
    `  save:                     ${save.toFixed(2)} s   (${saves.map((s) => s.toFixed(2)).join(', ')})`,
  )
  console.log(
    `  restore:                  ${restore.toFixed(2)} s   (${restores.map((s) => s.toFixed(2)).join(', ')})`,
  )
  console.log(
    `  sandbox peak memory:      ${peak.toFixed(0)} MB while saving and restoring (${seedingPeak.toFixed(0)} MB while seeding)`,
  )
  console.log(
    `  run --from-snapshot FILE: ${fromSnapshot.toFixed(2)} s until the command starts (file ${(statSync(snapshotFile).size / 1024 / 1024).toFixed(1)} MB)`,
  )
  console.log(`  run --seed FIXTURE:       ${fromScratch.toFixed(2)} s until the command starts`)
  console.log(verdict('save', `${save.toFixed(2)} s`, '≤ 1 s', save <= 1))
  console.log(verdict('restore', `${restore.toFixed(2)} s`, '≤ 1 s', restore <= 1))
  console.log(verdict('sandbox peak memory', `${peak.toFixed(0)} MB`, '≤ 200 MB', peak <= 200))
  console.log(
    verdict(
      'sandbox run --from-snapshot until the command starts',
      `${fromSnapshot.toFixed(2)} s`,
      '≤ 1.5 s',
      fromSnapshot <= 1.5,
    ),
  )
} finally {
  await sandbox.stop()
}
process.exit(0)
