/** Shared by the benchmark scripts: a real sandbox process, and figures. Not tests. */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

export const ROOT = resolve(import.meta.dirname, '..')
export const BIN = join(ROOT, 'bin', 'run.js')

export interface BenchSandbox extends BenchServer {
  configDir: string
  env: NodeJS.ProcessEnv
}

/**
 * CPU seconds used by process `pid`, or by its thread `thread` alone (its main thread is `pid`), from
 * /proc (Linux); NaN elsewhere.
 */
export function processCpuSeconds(pid: number, thread?: number): number {
  try {
    // Fields 14 and 15 (utime, stime) in clock ticks, counted after the parenthesised command name.
    const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`
    const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

/**
 * `payctl sandbox start` as its own process (its own core), rate limit off, on a free port; with
 * `logged`, as a user runs it, a line per request on its stderr (to `stderr`, a file descriptor),
 * else `--quiet`.
 */
export async function startSandbox(
  extra: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
  logged?: {stderr: number},
): Promise<BenchSandbox> {
  const configDir = mkdtempSync(join(tmpdir(), 'payctl-bench-'))
  const env = {...process.env, PAYCTL_CONFIG_DIR: configDir, NO_COLOR: '1', ...extraEnv}
  const quiet = logged === undefined ? ['--quiet'] : []
  const server = await startServer(
    BIN,
    ['sandbox', 'start', '--port', '0', '--rate-limit', 'off', ...quiet, '--json', ...extra],
    env,
    logged?.stderr,
  )
  return {
    ...server,
    configDir,
    env,
    stop: async () => {
      await server.stop()
      rmSync(configDir, {recursive: true, force: true})
    },
  }
}

export interface BenchServer {
  url: string
  /** The document it printed once listening (`url` and whatever else it says). */
  started: Record<string, unknown>
  pid: number
  /** CPU seconds (user + system) the process has used so far; NaN where /proc is missing. */
  cpuSeconds: () => number
  /** The same, of its main thread alone: the one that runs JavaScript and SQLite's statements. */
  mainThreadCpuSeconds: () => number
  stop: () => Promise<void>
}

/** Node running `script` as a server process that prints `{"url": …}` on stdout once it listens. */
export async function startServer(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  stderr: number | 'inherit' = 'inherit',
): Promise<BenchServer> {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    env,
    stdio: ['ignore', 'pipe', stderr],
  })
  const started = await new Promise<Record<string, unknown> & {url: string}>((resolvePromise, reject) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      try {
        const doc = JSON.parse(text) as Record<string, unknown> & {url: string}
        if (typeof doc.url === 'string') resolvePromise(doc)
        else reject(new Error(`${script} did not start: ${text}`))
      } catch {
        // not a whole document yet
      }
    })
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
  return {
    url: started.url,
    started,
    pid: child.pid!,
    cpuSeconds: () => processCpuSeconds(child.pid!),
    mainThreadCpuSeconds: () => processCpuSeconds(child.pid!, child.pid!),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    },
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

export interface LoadResult {
  ok: number
  failed: number
  perSecond: number
  p50: number
  p99: number
  /** CPU microseconds per successful request: this (client) process, and the server's if known. */
  clientCpuUs: number
  serverCpuUs: number
  /** The server's main thread's CPU microseconds per successful request, if asked for. */
  serverMainUs: number
  firstError?: unknown
}

/**
 * Run `op` from `concurrency` workers for `seconds`; count successes and keep latencies. With
 * `serverCpuSeconds`, also the server's CPU time per request: on a busy machine CPU time per
 * request says more than requests per second about what each side costs.
 */
export async function load(
  concurrency: number,
  seconds: number,
  op: (worker: number, i: number) => Promise<unknown>,
  serverCpuSeconds: () => number = () => Number.NaN,
  serverMainThreadSeconds: () => number = () => Number.NaN,
): Promise<LoadResult> {
  const latencies: number[] = []
  let failed = 0
  let firstError: unknown
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
  const clientCpu = process.cpuUsage()
  const serverCpu = serverCpuSeconds()
  const serverMain = serverMainThreadSeconds()
  await Promise.all(
    Array.from({length: concurrency}, async (_, worker) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const t = performance.now()
        try {
          await op(worker, i)
          latencies.push(performance.now() - t)
        } catch (err) {
          failed++
          firstError ??= err
        }
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  const {user, system} = process.cpuUsage(clientCpu)
  const serverUs = (serverCpuSeconds() - serverCpu) * 1e6
  const serverMainUs = (serverMainThreadSeconds() - serverMain) * 1e6
  latencies.sort((a, b) => a - b)
  return {
    ok: latencies.length,
    failed,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    clientCpuUs: (user + system) / latencies.length,
    serverCpuUs: serverUs / latencies.length,
    serverMainUs: serverMainUs / latencies.length,
    firstError,
  }
}

/** The median of `values` (NaN for none). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** A line of the verdicts every benchmark ends with: a figure beside its target, met or missed. */
export function verdict(what: string, figure: string, target: string, met: boolean): string {
  return `  ${met ? 'met   ' : 'MISSED'}  ${what}: ${figure} (target ${target})`
}

type Client = {call: (id: string, input?: unknown) => Promise<Record<string, unknown>>}

/** A user with one USD wallet and `count` card top-ups, made through payctl's own client, `concurrency` at once. */
export async function seedUser(configDir: string, count: number, concurrency: number): Promise<string> {
  const lib = (await import(pathToFileURL(join(ROOT, 'dist', 'index.js')).href)) as {
    connect: (opts: {configDir: string}) => Client
  }
  const client = lib.connect({configDir})
  const user = await client.call('createUser', {
    body: {email: 'busy@example.test', first_name: 'Busy', last_name: 'Customer'},
  })
  const wallet = await client.call('createWallet', {body: {userId: user.id, currency: 'USD'}})
  const high = 1_000_000_000_00
  await client.call('updateWallet', {
    params: {id: wallet.id},
    body: {limits: {daily: high, monthly: high, transaction: high}},
  })
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await client.call('createTransaction', {
        body: {
          amount: 100 + (i % 900),
          currency: 'USD',
          method: 'card',
          destinationWalletId: wallet.id,
          paymentMethodId: 'pm_card_visa',
        },
      })
    }
  }
  await Promise.all(Array.from({length: concurrency}, worker))
  return String(user.id)
}
