/**
 * Snapshots of a partner with 100,000 records: how long a save and a restore take (each one
 * request to a sandbox process on a data file), that sandbox's peak memory, and `payctl sandbox run
 * --from-snapshot FILE` until its command starts, beside `sandbox run --seed` of the same records
 * (seeding from scratch). The records are users, wallets and transfers between them, seeded once.
 *
 *   npm run bench:snapshots
 *   node bench/snapshots.ts --records 100000 --runs 3
 *
 * Not a test: it prints figures.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {BIN, median, startServer, verdict} from './lib.ts'

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

/** A process's peak resident memory since it started, in MB (Linux); NaN elsewhere. */
function peakMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match === null ? Number.NaN : Number(match[1]) / 1024
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

// On the default data file of a config dir of its own, as `sandbox start` runs it. Seeded by one
// sandbox process; saved and restored by a second on the same file, so that its memory is that
// of a sandbox holding the records, not what answering 100,000 requests left in the first.
const configDir = mkdtempSync(join(tmpdir(), 'payctl-bench-'))
const env = {...process.env, PAYCTL_CONFIG_DIR: configDir, NO_COLOR: '1'}
const startArgs = ['sandbox', 'start', '--port', '0', '--rate-limit', 'off', '--quiet', '--json']
const file = join(configDir, 'bench.yaml')
writeFileSync(file, fixture(perKind))
const seeding = await startServer(BIN, startArgs, env)
const seeded = performance.now()
let seedingPeak: number
try {
  payctl(['seed', file, '--rate', 'off', '--concurrency', '32', '--json'], env)
  seedingPeak = peakMb(seeding.pid)
} finally {
  await seeding.stop()
}
const seedSeconds = (performance.now() - seeded) / 1000
const sandbox = await startServer(BIN, startArgs, env)
try {
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  const token = payctl(['auth', 'token'], env).trim()
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
  const snapshotFile = join(configDir, 'bench.snapshot')
  payctl(['sandbox', 'snapshot', 'save', 'bench', '--file', snapshotFile], env)
  const fromSnapshot = median(
    Array.from({length: Number(values.runs)}, () => untilCommand(['--from-snapshot', snapshotFile], env)),
  )
  // The same file where it was not sealed (another config dir, as on a CI runner it is carried to):
  // its rows are rebuilt and checked one by one before the command starts (docs/sandbox.md#snapshots).
  const elsewhere = mkdtempSync(join(tmpdir(), 'payctl-bench-'))
  const checked = untilCommand(['--from-snapshot', snapshotFile], {...env, PAYCTL_CONFIG_DIR: elsewhere})
  rmSync(elsewhere, {recursive: true, force: true})
  const fromScratch = untilCommand(['--seed', file], env)

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
    `  sandbox peak memory:      ${peak.toFixed(0)} MB: a sandbox started on the seeded file, through the saves and restores (${seedingPeak.toFixed(0)} MB in the one that answered the seeding)`,
  )
  console.log(
    `  run --from-snapshot FILE: ${fromSnapshot.toFixed(2)} s until the command starts (file ${(statSync(snapshotFile).size / 1024 / 1024).toFixed(1)} MB)`,
  )
  console.log(
    `  the same from elsewhere:  ${checked.toFixed(2)} s until the command starts (a file this config dir did not seal: its rows rebuilt and checked)`,
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
  rmSync(configDir, {recursive: true, force: true})
}
process.exit(0)
