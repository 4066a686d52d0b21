/**
 * Wallet-to-wallet POST /v1/transactions per second that the sandbox sustains, run as a user runs it,
 * against the same-work server (bench/same-work-server.ts: no framework, writing exactly what the
 * sandbox writes for a transfer, bench/same-work.ts) and, for the record, the minimal server
 * (bench/minimal-server.ts: the SQL of a transfer alone, a third of the sandbox's work).
 *
 *   npm run bench:transactions
 *   node bench/transactions.ts --concurrency 50 --seconds 5 --wallets 16 --runs 3 --warmup 3
 *   node bench/transactions.ts --show-work work.json   (also writes what a transfer writes, as captured)
 *
 * As a user runs the sandbox: `payctl sandbox start` on a data file, the request log on, a line per
 * request on stderr (here a file, no --quiet), a JWT from the token exchange as the Bearer, a fresh
 * Idempotency-Key on every POST as payctl's client sends. Each server runs as its own process and
 * the load generator (undici, one connection per request under way) in this one, so on a 2-core
 * machine each side gets a core. After a warm-up of each, rounds alternate between the servers, so
 * that a burst of load from elsewhere hits all alike; each figure is the median of `--runs` rounds.
 * Next to it, the CPU time per request of each side, which a busy machine blurs less than requests
 * per second do. Not a test: it prints figures.
 */
import {randomUUID} from 'node:crypto'
import {openSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg} from 'node:os'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'
import {parseArgs} from 'node:util'
import {Pool} from 'undici'
import {
  type BenchServer,
  type LoadResult,
  load,
  median,
  ROOT,
  startSandbox,
  startServer,
  verdict,
} from './lib.ts'
import {captureTransferWork, type Watched} from './same-work.ts'

const {values} = parseArgs({
  options: {
    concurrency: {type: 'string', default: '50'},
    seconds: {type: 'string', default: '5'},
    warmup: {type: 'string', default: '3'},
    wallets: {type: 'string', default: '16'},
    runs: {type: 'string', default: '3'},
    /** Write what the capture found a transfer writes to this file, to read it. */
    'show-work': {type: 'string'},
  },
})
const concurrency = Number(values.concurrency)
const seconds = Number(values.seconds)
const runs = Number(values.runs)
const walletCount = Number(values.wallets)
const scratch = (name: string) => join(process.env.TMPDIR ?? '/tmp', `payctl-bench-${name}-${process.pid}`)
const files = {
  sandbox: `${scratch('sandbox')}.db`,
  sameWork: `${scratch('same-work')}.db`,
  minimal: `${scratch('minimal')}.db`,
  work: `${scratch('work')}.json`,
  sandboxStderr: `${scratch('sandbox')}.stderr`,
  sameWorkStderr: `${scratch('same-work')}.stderr`,
}

const secrets = {
  PAYCTL_SANDBOX_SECRET_KEY: `test_bench_${randomUUID().replaceAll('-', '')}`,
  PAYCTL_SANDBOX_API_SECRET: `sk_test_bench_${randomUUID().replaceAll('-', '')}`,
}
const stderrOf = (file: string) => openSync(file, 'w')
const sandbox = await startSandbox(['--data', files.sandbox], secrets, {
  stderr: stderrOf(files.sandboxStderr),
})
const servers: BenchServer[] = [sandbox]

/** A target: its pool, a request with the bench's token, and a transfer between two of `wallets`. */
function target(url: string, token: string, wallets: string[]) {
  const pool = new Pool(url, {connections: concurrency})
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    }
    if (method === 'POST') headers['idempotency-key'] = randomUUID()
    const res = await pool.request({
      method,
      path,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.body.text()
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`)
    return {text, res, key: headers['idempotency-key']}
  }
  const transferBody = (from: string, to: string) => ({
    amount: 100,
    currency: 'USD',
    method: 'wallet',
    sourceWalletId: from,
    destinationWalletId: to,
  })
  return {
    pool,
    send,
    transferBody,
    transfer: (w: number, i: number) => {
      const from = (w + i) % wallets.length
      const to = (from + 1 + (i % (wallets.length - 1))) % wallets.length
      return send('POST', '/v1/transactions', transferBody(wallets[from]!, wallets[to]!))
    },
  }
}

/** The token exchange, as `payctl auth login` makes it: the partner's API key and secret for a JWT. */
async function exchange(url: string): Promise<{token: string; partnerId: string}> {
  const credentials = sandbox.started.credentials as {apiKey: string; partnerId: string}
  const res = await fetch(`${url}/v1/auth/token`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({
      api_key: credentials.apiKey,
      api_secret: secrets.PAYCTL_SANDBOX_API_SECRET,
      partner_id: credentials.partnerId,
    }),
  })
  const body = (await res.json()) as {access_token?: string; data?: {access_token: string}}
  const token = body.access_token ?? body.data?.access_token
  if (token === undefined) throw new Error(`token exchange: ${res.status} ${JSON.stringify(body)}`)
  return {token, partnerId: credentials.partnerId}
}

try {
  const {token, partnerId} = await exchange(sandbox.url)
  const setup = target(sandbox.url, token, [])
  const wallets: string[] = []
  for (let i = 0; i < walletCount; i++) {
    const user = JSON.parse(
      (
        await setup.send('POST', '/v1/users', {
          email: `bench${i}@example.test`,
          first_name: 'B',
          last_name: `N${i}`,
        })
      ).text,
    )
    const wallet = JSON.parse(
      (
        await setup.send('POST', '/v1/wallets', {
          userId: (user.data ?? user).id,
          currency: 'USD',
          initialBalance: 10_000_000,
        })
      ).text,
    )
    wallets.push((wallet.data ?? wallet).id)
  }
  // What a transfer writes, read from the sandbox's file; then its file as it is, for the yardstick.
  const work = await captureTransferWork(
    files.sandbox,
    files.sandboxStderr,
    partnerId,
    async (): Promise<Watched> => {
      const [source, destination] = [wallets[0]!, wallets[1]!]
      const {text, res, key} = await setup.send(
        'POST',
        '/v1/transactions',
        setup.transferBody(source, destination),
      )
      const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]))
      return {source, destination, key: key!, answer: {status: res.statusCode, headers, body: text}}
    },
  )
  await setup.pool.close()
  writeFileSync(files.work, JSON.stringify(work))
  if (values['show-work'] !== undefined) writeFileSync(values['show-work'], JSON.stringify(work, null, 1))
  const copy = new DatabaseSync(files.sandbox, {readOnly: true})
  copy.exec(`VACUUM INTO '${files.sameWork}'`)
  copy.close()
  const sameWork = await startServer(
    join(ROOT, 'bench', 'same-work-server.ts'),
    [files.sameWork, files.work],
    process.env,
    stderrOf(files.sameWorkStderr),
  )
  servers.push(sameWork)
  const minimal = await startServer(join(ROOT, 'bench', 'minimal-server.ts'), [
    files.minimal,
    String(walletCount),
  ])
  servers.push(minimal)

  const sides: {
    name: string
    server: BenchServer
    target: ReturnType<typeof target>
    results: LoadResult[]
  }[] = [
    {
      name: 'sandbox',
      server: sandbox,
      target: target(sandbox.url, token, wallets),
      results: [],
    },
    {name: 'same-work server', server: sameWork, target: target(sameWork.url, token, wallets), results: []},
    {
      name: 'minimal server',
      server: minimal,
      target: target(
        minimal.url,
        token,
        Array.from({length: walletCount}, (_, i) => `wal_${i}`),
      ),
      results: [],
    },
  ]
  const measure = (side: (typeof sides)[number], duration: number) =>
    load(
      concurrency,
      duration,
      side.target.transfer,
      side.server.cpuSeconds,
      side.server.mainThreadCpuSeconds,
    )
  for (const side of sides) await measure(side, Number(values.warmup))
  const loads: number[] = []
  for (let r = 0; r < runs; r++) {
    loads.push(loadavg()[0]!)
    for (const side of sides) side.results.push(await measure(side, seconds))
  }
  report(sides, loads)
  const firstError = sides.flatMap((s) => s.results).find((r) => r.firstError !== undefined)?.firstError
  if (firstError !== undefined) console.log('first error:', firstError)
  await Promise.all(sides.map((s) => s.target.pool.close()))
} catch (err) {
  for (const file of [files.sandboxStderr, files.sameWorkStderr]) {
    try {
      console.error(`${file}:\n${readFileSync(file, 'utf8').split('\n').slice(-10).join('\n')}`)
    } catch {}
  }
  throw err
} finally {
  await Promise.all(servers.map((s) => s.stop()))
  for (const name of ['sandbox', 'sameWork', 'minimal'] as const)
    for (const suffix of ['', '-wal', '-shm', '-requests.log', '-requests.log.1'])
      rmSync(files[name] + suffix, {force: true})
  for (const file of [files.work, files.sandboxStderr, files.sameWorkStderr]) rmSync(file, {force: true})
}

function report(sides: {name: string; results: LoadResult[]}[], loads: number[]): void {
  const fixed = (v: number, width: number, digits = 0) => v.toFixed(digits).padStart(width)
  const m = (rs: LoadResult[], f: (r: LoadResult) => number) => median(rs.map(f))
  console.log(
    `transfers: ${concurrency} connections, ${walletCount} wallets, data file, JWT, request log and stderr lines on; median of ${runs} rounds of ${seconds} s (Node ${process.version}; load average ${loads.map((l) => l.toFixed(1)).join(', ')} at each round's start)`,
  )
  for (const {name, results: rs} of sides) {
    console.log(
      `  ${name.padEnd(17)} ${fixed(
        m(rs, (r) => r.perSecond),
        6,
      )}/s   p50 ${fixed(
        m(rs, (r) => r.p50),
        5,
        1,
      )} ms   p99 ${fixed(
        m(rs, (r) => r.p99),
        6,
        1,
      )} ms   CPU/request: server ${fixed(
        m(rs, (r) => r.serverCpuUs),
        4,
      )} µs (main thread ${fixed(
        m(rs, (r) => r.serverMainUs),
        4,
      )} µs), load ${fixed(
        m(rs, (r) => r.clientCpuUs),
        4,
      )} µs   failed ${rs.reduce((n, r) => n + r.failed, 0)}`,
    )
  }
  console.log(
    `  per round, POST/s: ${sides.map((s) => `${s.name} ${s.results.map((r) => r.perSecond.toFixed(0)).join(', ')}`).join('; ')}`,
  )
  const [sandboxSide, sameWork, minimal] = sides.map((s) => s.results) as [
    LoadResult[],
    LoadResult[],
    LoadResult[],
  ]
  const rate = (rs: LoadResult[]) => m(rs, (r) => r.perSecond)
  const p99 = (rs: LoadResult[]) => m(rs, (r) => r.p99)
  const ratio = rate(sandboxSide) / rate(sameWork)
  const p99Ratio = p99(sandboxSide) / p99(sameWork)
  console.log(
    `  for the record: sandbox / minimal server ${(rate(sandboxSide) / rate(minimal)).toFixed(2)}× (p99 ${(p99(sandboxSide) / p99(minimal)).toFixed(2)}×); same-work / minimal ${(rate(sameWork) / rate(minimal)).toFixed(2)}×`,
  )
  console.log(
    verdict(
      'sandbox transfers / same-work server',
      `${ratio.toFixed(2)}×`,
      '≥ 0.85×, stretch 0.95×',
      ratio >= 0.85,
    ),
  )
  console.log(
    verdict(
      'sandbox transfer p99 / same-work server p99',
      `${p99Ratio.toFixed(2)}×`,
      '≤ 1.3×',
      p99Ratio <= 1.3,
    ),
  )
}
process.exit(0)
