/**
 * The yardstick for the sandbox's transfer rate: the least a server on the same stack must do to
 * move money between two wallets. `node:http`, a JSON body checked by a zod schema, `node:sqlite`
 * in WAL with synchronous=NORMAL, and per request one SQL transaction (debit with a funds check,
 * credit, one transaction row, two ledger rows) and its commit. No auth, idempotency, rate limits,
 * events or envelopes: the sandbox's extra work is what a comparison with it shows.
 *
 *   node bench/minimal-server.ts DATA_FILE WALLETS   → prints {"url": …} once listening
 *
 * Its wallets are `wal_0` … `wal_{WALLETS-1}` in USD, each with 10,000,000.00. Not a test.
 */
import {randomUUID} from 'node:crypto'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {DatabaseSync} from 'node:sqlite'
import {z} from 'zod'

const [file = ':memory:', wallets = '16'] = process.argv.slice(2)
const db = new DatabaseSync(file)
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
  CREATE TABLE wallets (id TEXT PRIMARY KEY, currency TEXT NOT NULL, available INTEGER NOT NULL);
  CREATE TABLE transactions (id TEXT PRIMARY KEY, amount INTEGER, currency TEXT, source TEXT,
    destination TEXT, status TEXT, created_at TEXT);
  CREATE TABLE ledger_entries (seq INTEGER PRIMARY KEY, transaction_id TEXT, account TEXT, amount INTEGER);`)
const addWallet = db.prepare("INSERT INTO wallets VALUES (?, 'USD', 1000000000)")
for (let i = 0; i < Number(wallets); i++) addWallet.run(`wal_${i}`)

const Transfer = z.object({
  amount: z.number().int().positive(),
  currency: z.string().length(3),
  method: z.literal('wallet'),
  sourceWalletId: z.string().min(1),
  destinationWalletId: z.string().min(1),
})
const debit = db.prepare(
  'UPDATE wallets SET available = available - ? WHERE id = ? AND currency = ? AND available >= ?',
)
const credit = db.prepare('UPDATE wallets SET available = available + ? WHERE id = ? AND currency = ?')
const insertTx = db.prepare("INSERT INTO transactions VALUES (?, ?, ?, ?, ?, 'completed', ?)")
const insertEntry = db.prepare(
  'INSERT INTO ledger_entries (transaction_id, account, amount) VALUES (?, ?, ?)',
)
const [begin, commit, rollback] = ['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'].map((sql) => db.prepare(sql))

function transfer(t: z.output<typeof Transfer>): [number, unknown] {
  const id = `txn_${randomUUID().replaceAll('-', '')}`
  const createdAt = new Date().toISOString()
  begin!.run()
  try {
    if (debit.run(t.amount, t.sourceWalletId, t.currency, t.amount).changes !== 1) {
      rollback!.run()
      return [422, {error: {code: 'INSUFFICIENT_FUNDS'}}]
    }
    if (credit.run(t.amount, t.destinationWalletId, t.currency).changes !== 1)
      throw new Error('no destination')
    insertTx.run(id, t.amount, t.currency, t.sourceWalletId, t.destinationWalletId, createdAt)
    insertEntry.run(id, `${t.sourceWalletId}:available`, -t.amount)
    insertEntry.run(id, `${t.destinationWalletId}:available`, t.amount)
    commit!.run()
  } catch (err) {
    if (db.isTransaction) rollback!.run()
    return [404, {error: {code: 'NOT_FOUND', message: (err as Error).message}}]
  }
  return [201, {id, ...t, status: 'completed', createdAt}]
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    let answer: [number, unknown] = [404, {error: {code: 'NOT_FOUND'}}]
    if (req.method === 'POST' && req.url === '/v1/transactions') {
      let parsed: ReturnType<typeof Transfer.safeParse> | undefined
      try {
        parsed = Transfer.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      } catch {}
      answer = parsed?.success ? transfer(parsed.data) : [400, {error: {code: 'VALIDATION_ERROR'}}]
    }
    const body = JSON.stringify(answer[1])
    res.writeHead(answer[0], {'content-type': 'application/json', 'content-length': Buffer.byteLength(body)})
    res.end(body)
  })
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`})}\n`,
  )
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
