/** Shared by the benchmark scripts: a real sandbox process, and figures. Not tests. */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

export const ROOT = resolve(import.meta.dirname, '..')
export const BIN = join(ROOT, 'bin', 'run.js')

export interface BenchSandbox {
  url: string
  configDir: string
  env: NodeJS.ProcessEnv
  stop: () => Promise<void>
}

/** `payctl sandbox start` as its own process (its own core), rate limit off, on a free port. */
export async function startSandbox(extra: string[] = []): Promise<BenchSandbox> {
  const configDir = mkdtempSync(join(tmpdir(), 'payctl-bench-'))
  const env = {...process.env, PAYCTL_CONFIG_DIR: configDir, NO_COLOR: '1'}
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'sandbox', 'start', '--port', '0', '--rate-limit', 'off', '--quiet', '--json', ...extra],
    {env, stdio: ['ignore', 'pipe', 'inherit']},
  )
  const url = await new Promise<string>((resolvePromise, reject) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      try {
        resolvePromise((JSON.parse(text) as {url: string}).url)
      } catch {
        // not a whole document yet
      }
    })
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  return {
    url,
    configDir,
    env,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      rmSync(configDir, {recursive: true, force: true})
    },
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

/** Run `op` from `concurrency` workers for `seconds`; count successes and keep latencies. */
export async function load(
  concurrency: number,
  seconds: number,
  op: (worker: number, i: number) => Promise<unknown>,
): Promise<{ok: number; failed: number; perSecond: number; p50: number; p99: number; firstError?: unknown}> {
  const latencies: number[] = []
  let failed = 0
  let firstError: unknown
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
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
  latencies.sort((a, b) => a - b)
  return {
    ok: latencies.length,
    failed,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    firstError,
  }
}
