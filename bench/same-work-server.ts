/**
 * The yardstick for the sandbox's transfers: a server with no framework that does, for each
 * `POST /v1/transactions` between two wallets, the work the sandbox cannot do without — and writes
 * exactly what the sandbox writes (bench/same-work.ts reads that from the sandbox's own file): the
 * two transaction records, ledger entries, balances, the volume counter, the events and what they
 * are about, the stored answer, the request log's line and the line on stderr. As efficiently as
 * the data model allows: `node:http`; a JWT checked once then remembered, as the sandbox does;
 * revocation and balances in memory; the body checked in plain code; the idempotency key looked up
 * through the sandbox's index; each request in a savepoint of a group committed once per turn of
 * the event loop, with no answer before its commit; the sandbox's own background checkpointer; log
 * lines written once per turn.
 *
 *   node bench/same-work-server.ts DATA_FILE WORK_FILE   → prints {"url": …} once listening
 *
 * DATA_FILE is a copy of the sandbox's file after its wallets were made (its tables, made by the
 * sandbox's code, its signing key and wallets); WORK_FILE the TransferWork of bench/same-work.ts.
 * Not a test.
 */
import {createHash, createHmac, randomBytes, timingSafeEqual} from 'node:crypto'
import {closeSync, openSync, readFileSync, writeSync} from 'node:fs'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {SQLInputValue, StatementSync} from 'node:sqlite'
import {pathToFileURL} from 'node:url'
import type {Json, Part, Text, TransferWork, Value} from './same-work.ts'

const [file, workFile] = process.argv.slice(2)
if (file === undefined || workFile === undefined)
  throw new Error('usage: same-work-server.ts DATA_FILE WORK_FILE')
const work = JSON.parse(readFileSync(workFile, 'utf8')) as TransferWork

// The sandbox's own connection settings and checkpointer, from the build.
const dist = (path: string) =>
  import(pathToFileURL(new URL(`../dist/sandbox/storage/${path}`, import.meta.url).pathname).href)
const {Database} = (await dist('database.js')) as typeof import('../src/sandbox/storage/database.ts')
const {checkpointInBackground} = (await dist(
  'checkpointer.js',
)) as typeof import('../src/sandbox/storage/checkpointer.ts')
const database = new Database(file)
const db = database.db
checkpointInBackground(database)

const signingKey = Buffer.from(
  String(db.prepare("SELECT value FROM meta WHERE key = 'jwt_signing_key'").get()?.value),
  'base64',
)
const balances = new Map<string, bigint>()
for (const row of db.prepare('SELECT id, available FROM wallets').all())
  balances.set(String(row.id), BigInt(String(row.available)))

/** What a request puts in the parts of its texts. */
interface Fill {
  source: string
  destination: string
  key: string
  now: string
  nowMs: number
  fresh: string[]
  rowids: number[]
}

let pool = Buffer.alloc(0)
let used = 0
function hex(chars: number): string {
  const bytes = Math.ceil(chars / 2)
  if (used + bytes > pool.length) {
    pool = randomBytes(4096)
    used = 0
  }
  used += bytes
  return pool.toString('hex', used - bytes, used).slice(0, chars)
}
const freshId = ({prefix, hex: chars, timeOrdered}: TransferWork['fresh'][number]) =>
  timeOrdered
    ? `${prefix}_${Date.now().toString(16).padStart(11, '0')}${hex(chars - 11)}`
    : `${prefix}_${hex(chars)}`

function text(parts: Part[], fill: Fill): string {
  let out = ''
  for (const part of parts)
    out += typeof part === 'string' ? part : part.of === 'fresh' ? fill.fresh[part.n]! : fill[part.of]
  return out
}

function build(json: Json, fill: Fill): unknown {
  if (json === null || typeof json !== 'object') return json
  if (Array.isArray(json)) return json.map((j) => build(j, fill))
  if ('parts' in json) return text(json.parts, fill)
  const object: Record<string, unknown> = {}
  for (const [k, v] of json.object) object[k] = build(v, fill)
  return object
}

/** A text of the transfer: its parts filled in, or its JSON document built and serialized. */
const written = (t: Text, fill: Fill): string =>
  'text' in t ? text(t.text, fill) : JSON.stringify(build(t.json, fill))

function value(v: Value, fill: Fill): SQLInputValue {
  if ('literal' in v) return v.literal
  if ('text' in v || 'json' in v) return written(v, fill)
  if ('rowidOf' in v) return fill.rowids[v.rowidOf]!
  return fill.nowMs
}

const inserts = work.inserts.map((insert) => ({
  statement: db.prepare(
    `INSERT INTO "${insert.table}" (${insert.columns.map((c) => `"${c}"`).join(', ')}) VALUES (${insert.columns.map(() => '?').join(', ')})`,
  ),
  values: insert.values,
}))
const updates = work.updates.map((update) => ({
  statement: db.prepare(
    `UPDATE "${update.table}" SET ${update.set.map(([c]) => `"${c}" = ?`).join(', ')} WHERE ${update.where.map(([c]) => `"${c}" = ?`).join(' AND ')}`,
  ),
  values: [...update.set.map(([, v]) => v), ...update.where.map(([, v]) => v)],
}))
// The sandbox's look-up of a key's stored answer, through its index.
const latest = db.prepare(
  'SELECT fingerprint, status, body, request_id, created_at FROM idempotency_log WHERE partner_id = ? AND key = ? ORDER BY seq DESC LIMIT 1',
)
const control = (sql: string): StatementSync => db.prepare(sql)
const [begin, commit, rollback, savepoint, release, rollbackTo] = [
  'BEGIN IMMEDIATE',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT sp0',
  'RELEASE sp0',
  'ROLLBACK TO sp0',
].map(control) as [StatementSync, StatementSync, StatementSync, StatementSync, StatementSync, StatementSync]

/** Answers waiting for the group's commit, and the log lines of the turn. */
let waiting: (() => void)[] | undefined
let requestLog: string[] = []
let stderr: string[] = []
const logFd = openSync(`${file}-requests.log`, 'a')

function commitGroup(): void {
  const answers = waiting!
  waiting = undefined
  try {
    commit.run()
  } catch (err) {
    if (db.isTransaction) rollback.run()
    throw err
  }
  for (const answer of answers) answer()
  if (requestLog.length > 0) writeSync(logFd, requestLog.join(''))
  if (stderr.length > 0) writeSync(2, stderr.join(''))
  requestLog = []
  stderr = []
}

/** Write one transfer in a savepoint of the open group; the answer leaves once the group commits. */
function transfer(fill: Fill, amount: bigint, send: () => void): void {
  if (waiting === undefined) {
    begin.run()
    waiting = []
    setImmediate(commitGroup)
  }
  savepoint.run()
  try {
    for (const {statement, values} of inserts)
      fill.rowids.push(Number(statement.run(...values.map((v) => value(v, fill))).lastInsertRowid))
    for (const {statement, values} of updates) statement.run(...values.map((v) => value(v, fill)))
    release.run()
  } catch (err) {
    rollbackTo.run()
    release.run()
    throw err
  }
  balances.set(fill.source, balances.get(fill.source)! - amount)
  balances.set(fill.destination, balances.get(fill.destination)! + amount)
  waiting.push(send)
}

/** Verified tokens, by their text: a signature is checked once. */
const tokens = new Map<string, {exp: number}>()
function authenticated(header: string | undefined): boolean {
  const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined
  if (token === undefined) return false
  let claims = tokens.get(token)
  if (claims === undefined) {
    const [head, payload, signature] = token.split('.')
    const expected = createHmac('sha256', signingKey).update(`${head}.${payload}`).digest()
    const given = Buffer.from(signature ?? '', 'base64url')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false
    const parsed = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as {exp: number; env: string}
    if (parsed.env !== 'sandbox') return false
    claims = {exp: parsed.exp}
    tokens.set(token, claims)
  }
  return claims.exp > Date.now() / 1000
}

interface TransferBody {
  amount: number
  currency: string
  method: string
  sourceWalletId: string
  destinationWalletId: string
}

const isBody = (b: Partial<TransferBody> | null): b is TransferBody =>
  b !== null &&
  typeof b === 'object' &&
  Number.isSafeInteger(b.amount) &&
  b.amount! > 0 &&
  typeof b.currency === 'string' &&
  /^[A-Z]{3}$/.test(b.currency) &&
  b.method === 'wallet' &&
  typeof b.sourceWalletId === 'string' &&
  typeof b.destinationWalletId === 'string' &&
  b.sourceWalletId !== b.destinationWalletId

const canonical = (body: TransferBody) =>
  JSON.stringify(Object.fromEntries(Object.entries(body).sort(([a], [b]) => (a < b ? -1 : 1))))

function refuse(res: ServerResponse, status: number, code: string): undefined {
  const body = JSON.stringify({success: false, error: {code}})
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  })
  res.end(body)
}

function handle(req: IncomingMessage, res: ServerResponse, raw: string): undefined {
  if (req.method !== 'POST' || req.url !== '/v1/transactions') return refuse(res, 404, 'NOT_FOUND')
  if (!authenticated(req.headers.authorization)) return refuse(res, 401, 'TOKEN_INVALID')
  let body: Partial<TransferBody> | null = null
  try {
    body = JSON.parse(raw) as Partial<TransferBody>
  } catch {}
  const key = req.headers['idempotency-key']
  if (!isBody(body) || typeof key !== 'string') return refuse(res, 400, 'VALIDATION_ERROR')
  // What identifies the request under its key (the sandbox stores it with the answer).
  const fingerprint = createHash('sha256')
    .update(`POST /transactions\n{}\n{}\n${canonical(body)}`)
    .digest('hex')
  const stored = latest.get(work.partnerId, key)
  if (stored !== undefined)
    return refuse(res, stored.fingerprint === fingerprint ? 409 : 422, 'DUPLICATE_TRANSACTION')
  const amount = BigInt(body.amount)
  const available = balances.get(body.sourceWalletId)
  if (available === undefined || !balances.has(body.destinationWalletId)) return refuse(res, 404, 'NOT_FOUND')
  if (available < amount) return refuse(res, 422, 'INSUFFICIENT_FUNDS')
  const date = new Date()
  const fill: Fill = {
    source: body.sourceWalletId,
    destination: body.destinationWalletId,
    key,
    now: date.toISOString(),
    nowMs: date.getTime(),
    fresh: work.fresh.map(freshId),
    rowids: [],
  }
  const answer = written(work.answer.body, fill)
  transfer(fill, amount, () => {
    const headers: Record<string, string | number> = {'content-length': Buffer.byteLength(answer)}
    for (const [name, parts] of work.answer.headers) headers[name] = text(parts, fill)
    res.writeHead(work.answer.status, headers)
    res.end(answer)
    requestLog.push(`${written(work.requestLogLine, fill)}\n`)
    stderr.push(`${text(work.stderrLine, fill)}\n`)
  })
}

const server = createServer((req, res) => {
  let raw = ''
  req.setEncoding('utf8')
  req.on('data', (chunk: string) => {
    raw += chunk
  })
  req.on('end', () => {
    try {
      handle(req, res, raw)
    } catch (err) {
      writeSync(2, `same-work server: ${String(err)}\n`)
      refuse(res, 500, 'INTERNAL_ERROR')
    }
  })
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`})}\n`,
  )
})
process.on('SIGTERM', () =>
  server.close(() => {
    closeSync(logFd)
    database.close()
    process.exit(0)
  }),
)
