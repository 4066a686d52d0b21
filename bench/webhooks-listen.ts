/**
 * Throughput and latency of `payctl webhooks listen`: events per second from the sandbox, through
 * the listen tunnel, to a local receiver; and the latency from each event's creation (its envelope
 * `timestamp`) to its arrival at the receiver.
 *
 *   npm run bench:webhooks                       # builds, then runs with the defaults
 *   node bench/webhooks-listen.ts --events 5000 --concurrency 32 --rate 200
 *
 * Runs the built CLI (dist) as real processes, like a user would: a sandbox, and a listen
 * forwarding to an HTTP receiver in this process. Not a test: it asserts nothing but completeness.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'

const {values: opts} = parseArgs({
  options: {
    events: {type: 'string', default: '2000'},
    concurrency: {type: 'string', default: '16'},
    rate: {type: 'string', default: '100'},
    steady: {type: 'string', default: '500'},
  },
})
const BURST = Number(opts.events)
const CONCURRENCY = Number(opts.concurrency)
const RATE = Number(opts.rate)
const STEADY = Number(opts.steady)
const EVENT = 'roundup.processed'

const ROOT = resolve(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin', 'run.js')
const configDir = mkdtempSync(join(tmpdir(), 'payctl-bench-'))
const env = {...process.env, PAYCTL_CONFIG_DIR: configDir, NO_COLOR: '1'}
const children: ChildProcess[] = []

function payctl(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
  children.push(child)
  return child
}

/** Resolve with the first stdout line (or whole JSON document) that `accept` takes. */
function firstJson<T>(child: ChildProcess, accept: (value: Record<string, unknown>) => boolean): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    let text = ''
    const timer = setTimeout(() => reject(new Error(`no answer:\n${text}`)), 30_000)
    const onData = (chunk: Buffer) => {
      text += chunk.toString()
      for (const candidate of [text, ...text.split('\n')]) {
        try {
          const value = JSON.parse(candidate) as Record<string, unknown>
          if (accept(value)) {
            clearTimeout(timer)
            // Found: the rest of stdout is drained unread, not parsed again with every chunk (which
            // made the benchmark's own process, the receiver's, the bottleneck of a long run).
            child.stdout!.off('data', onData)
            child.stdout!.on('data', () => undefined)
            resolvePromise(value as T)
            return
          }
        } catch {
          // not a whole document yet
        }
      }
    }
    child.stdout!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)))
  })
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

const arrivals = new Map<string, number>()
let arrivalWaiter: (() => void) | undefined
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const at = Date.now()
    const {id, timestamp} = JSON.parse(Buffer.concat(chunks).toString()) as {id: string; timestamp: string}
    if (!arrivals.has(id)) arrivals.set(id, at - Date.parse(timestamp))
    res.writeHead(200).end()
    arrivalWaiter?.()
  })
})

async function main(): Promise<void> {
  const sandbox = payctl([
    'sandbox',
    'start',
    '--port',
    '0',
    '--data',
    ':memory:',
    '--rate-limit',
    'off',
    '--json',
    '--show-secrets',
  ])
  const started = await firstJson<{url: string; credentials: {secretKey: string}}>(sandbox, (v) => 'url' in v)
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  const startListen = () =>
    payctl(['webhooks', 'listen', '--forward-to', target, '--events', EVENT, '--json'])
  let listen = startListen()
  await firstJson(listen, (v) => v.type === 'ready')

  const trigger = async (): Promise<string> => {
    const res = await fetch(`${started.url}/_sandbox/trigger`, {
      method: 'POST',
      headers: {authorization: `Bearer ${started.credentials.secretKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({event: EVENT}),
    })
    if (res.status !== 201) throw new Error(`trigger answered ${res.status}: ${await res.text()}`)
    return ((await res.json()) as {event: {id: string}}).event.id
  }
  const arrived = (ids: string[]) =>
    new Promise<void>((resolveArrived, reject) => {
      const timer = setTimeout(() => reject(new Error('events went missing')), 120_000)
      arrivalWaiter = () => {
        if (ids.every((id) => arrivals.has(id))) {
          clearTimeout(timer)
          arrivalWaiter = undefined
          resolveArrived()
        }
      }
      arrivalWaiter()
    })
  const report = (name: string, ids: string[], seconds: number, latency = true) => {
    const latencies = ids.map((id) => arrivals.get(id)!).sort((a, b) => a - b)
    const timing = latency
      ? `  p50 ${percentile(latencies, 50)} ms  p99 ${percentile(latencies, 99)} ms  max ${latencies.at(-1)} ms`
      : ''
    console.log(
      `${name.padEnd(40)} ${String(ids.length).padStart(6)} events  ${(ids.length / seconds).toFixed(0).padStart(6)} events/s${timing}`,
    )
  }

  // Warm up connections, JIT and SQLite statements.
  const warm: string[] = []
  for (let i = 0; i < 50; i++) warm.push(await trigger())
  await arrived(warm)

  // Burst: create events as fast as the sandbox takes them; throughput is creation to last arrival.
  const burst: string[] = []
  const t0 = performance.now()
  let next = 0
  await Promise.all(
    Array.from({length: CONCURRENCY}, async () => {
      while (next++ < BURST) burst.push(await trigger())
    }),
  )
  const created = performance.now()
  await arrived(burst)
  const done = performance.now()
  console.log(`burst: created at ${(BURST / ((created - t0) / 1000)).toFixed(0)} events/s`)
  report(`burst (${CONCURRENCY} concurrent creators)`, burst, (done - t0) / 1000)

  // Steady: a fixed rate well below capacity, for latency without queueing.
  const steady: string[] = []
  const t1 = performance.now()
  const pending: Promise<void>[] = []
  for (let i = 0; i < STEADY; i++) {
    const due = t1 + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    pending.push(trigger().then((id) => void steady.push(id)))
  }
  await Promise.all(pending)
  await arrived(steady)
  report(`steady (${RATE} events/s offered)`, steady, (performance.now() - t1) / 1000)

  // Backlog: events made while listen is stopped, drained when it starts: the tunnel's own capacity.
  // Killed, not stopped: Ctrl-C ends the session, and nothing would be collected for it.
  listen.kill('SIGKILL')
  await new Promise((r) => listen.once('exit', r))
  const backlog: string[] = []
  next = 0
  await Promise.all(
    Array.from({length: CONCURRENCY}, async () => {
      while (next++ < BURST) backlog.push(await trigger())
    }),
  )
  listen = startListen()
  await firstJson(listen, (v) => v.type === 'ready')
  const t2 = performance.now()
  await arrived(backlog)
  report('backlog drain (from Ready to last)', backlog, (performance.now() - t2) / 1000, false)
  console.log(`node ${process.version}, ${process.platform}/${process.arch}; listen forwarding to ${target}`)
}

try {
  await main()
} finally {
  for (const child of children) child.kill('SIGINT')
  receiver.close()
  await new Promise((r) => setTimeout(r, 500))
  rmSync(configDir, {recursive: true, force: true})
}
// The receiver's kept-alive connections and the children's pipes would keep the process waiting.
process.exit(0)
