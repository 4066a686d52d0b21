import {chmodSync, closeSync, constants, openSync} from 'node:fs'
import {
  DatabaseSync,
  type SQLInputValue,
  type SQLOutputValue,
  type StatementResultingChanges,
  type StatementSync,
} from 'node:sqlite'

/** Make a data file readable by its owner only, if it exists. */
function chmodPrivate(file: string): void {
  if (process.platform === 'win32') return
  try {
    chmodSync(file, 0o600)
  } catch (err) {
    // Absent, or not ours to change (a file someone else owns: SQLite says so when it opens it).
    if (!['ENOENT', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err
  }
}

/**
 * Bumped whenever the tables change shape (those below and each feature's own); a file from a
 * newer sandbox is refused. 3: listen sessions record when a listener connected and when they ended.
 */
const SCHEMA_VERSION = 3

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS partners (
  partner_id TEXT PRIMARY KEY,
  api_key TEXT NOT NULL UNIQUE,
  api_secret TEXT NOT NULL,
  secret_key TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  started_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  email TEXT NOT NULL,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  external_id TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS users_by_partner ON users (partner_id);

-- Amounts are TEXT: 18- and 24-decimal currencies overflow SQLite's 64-bit integers.
CREATE TABLE IF NOT EXISTS wallets (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  status TEXT NOT NULL,
  label TEXT,
  available TEXT NOT NULL,
  pending TEXT NOT NULL,
  reserved TEXT NOT NULL,
  limit_transaction TEXT NOT NULL,
  limit_daily TEXT NOT NULL,
  limit_monthly TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, currency)
);
CREATE INDEX IF NOT EXISTS wallets_by_partner ON wallets (partner_id, seq);

CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  partner_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_partner ON events (partner_id, seq);

CREATE TABLE IF NOT EXISTS idempotency_keys (
  partner_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  status INTEGER,
  body TEXT,
  request_id TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (partner_id, key)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS revoked_tokens (
  jti TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
`

/**
 * Money movement (docs/money.md): transaction records, the double-entry ledger, volume counters for
 * wallet limits, payment methods, bank-account links, and the wallet product's records. Amounts are
 * TEXT (exact integers, signed in ledger entries); the balance columns of `wallets` cache the sums
 * of their ledger entries.
 */
const MONEY_SCHEMA = `
CREATE TABLE IF NOT EXISTS transactions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  wallet_id TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  method TEXT,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  fee TEXT NOT NULL,
  net_amount TEXT NOT NULL,
  source_wallet_id TEXT,
  destination_wallet_id TEXT,
  payment_method_id TEXT,
  description TEXT,
  metadata TEXT,
  paired_id TEXT,
  original_id TEXT,
  refunded_amount TEXT NOT NULL DEFAULT '0',
  failure_reason TEXT,
  outcome TEXT,
  settles_at INTEGER,
  created_at TEXT NOT NULL,
  completed_at TEXT,
  estimated_completion TEXT
);
CREATE INDEX IF NOT EXISTS transactions_by_partner ON transactions (partner_id, seq);
CREATE INDEX IF NOT EXISTS transactions_by_wallet ON transactions (wallet_id, seq);
CREATE INDEX IF NOT EXISTS transactions_due ON transactions (settles_at) WHERE status = 'processing';

-- No index: written by every movement, read only by audits and resets.
CREATE TABLE IF NOT EXISTS ledger_entries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  partner_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  account TEXT NOT NULL,
  currency TEXT NOT NULL,
  amount TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS wallet_volumes (
  wallet_id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  day TEXT NOT NULL,
  daily TEXT NOT NULL,
  month TEXT NOT NULL,
  monthly TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS payment_methods (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  type TEXT NOT NULL,
  behaviour TEXT NOT NULL,
  brand TEXT,
  last4 TEXT,
  bank_name TEXT,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payment_methods_by_user ON payment_methods (user_id, seq);

CREATE TABLE IF NOT EXISTS link_tokens (
  token TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS bank_accounts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  bank_name TEXT NOT NULL,
  last4 TEXT NOT NULL,
  payment_method_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bank_accounts_by_user ON bank_accounts (user_id, seq);

-- Never the full card number or the CVC: they are shown once, in the creation response.
CREATE TABLE IF NOT EXISTS virtual_cards (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  wallet_id TEXT NOT NULL,
  brand TEXT NOT NULL,
  last4 TEXT NOT NULL,
  exp_month INTEGER NOT NULL,
  exp_year INTEGER NOT NULL,
  status TEXT NOT NULL,
  label TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS walletsvc_payments (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  wallet_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  merchant_name TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS walletsvc_transfers (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  from_user_id TEXT NOT NULL,
  to_user_id TEXT NOT NULL,
  out_transaction_id TEXT NOT NULL,
  in_transaction_id TEXT NOT NULL,
  note TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
`

/** Tables of MONEY_SCHEMA that hold a partner's records (emptied by POST /_sandbox/reset). */
export const MONEY_TABLES = [
  'transactions',
  'ledger_entries',
  'wallet_volumes',
  'payment_methods',
  'link_tokens',
  'bank_accounts',
  'virtual_cards',
  'walletsvc_payments',
  'walletsvc_transfers',
] as const

/**
 * Schema 1 to 2: wallets had a stored balance and no ledger. Give each funded wallet an opening
 * `adjustment` transaction and its two entries, so that every balance equals its ledger.
 */
const UPGRADE_TO_2 = `
INSERT INTO transactions (id, partner_id, wallet_id, type, status, amount, currency, fee, net_amount,
  destination_wallet_id, description, created_at, completed_at)
SELECT 'txn_' || lower(hex(randomblob(12))), partner_id, id, 'adjustment', 'completed', available, currency,
  '0', available, id, 'Opening balance', created_at, created_at
FROM wallets WHERE available != '0';
INSERT INTO ledger_entries (partner_id, transaction_id, account, currency, amount, created_at)
SELECT partner_id, id, wallet_id || ':available', currency, amount, created_at
FROM transactions WHERE type = 'adjustment' AND description = 'Opening balance'
UNION ALL
SELECT partner_id, id, 'external:sandbox_funding', currency, '-' || amount, created_at
FROM transactions WHERE type = 'adjustment' AND description = 'Opening balance';
`

const KEEP_WRITES = Symbol('keepWrites')

/**
 * Mark an error whose writes must stand although it is thrown: the failure is itself the outcome
 * (a declined card answers 402 and leaves a failed transaction with its event).
 */
export function keepWrites<E extends Error>(err: E): E {
  return Object.assign(err, {[KEEP_WRITES]: true})
}

function keepsWrites(err: unknown): boolean {
  return err !== null && typeof err === 'object' && (err as {[KEEP_WRITES]?: boolean})[KEEP_WRITES] === true
}

/**
 * A row type a statement may be given: every column one of the values SQLite answers (no booleans,
 * no undefined; a flag is 0 or 1, an absent value null).
 */
export type Columns<Row> = {[K in keyof Row]-?: SQLOutputValue}

/**
 * A prepared statement whose rows are `Row`, as `Database.prepare` gives it. Parameters are
 * positional, as in every statement of the sandbox.
 */
export interface Statement<Row extends Columns<Row> = never> {
  get(...params: SQLInputValue[]): Row | undefined
  all(...params: SQLInputValue[]): Row[]
  run(...params: SQLInputValue[]): StatementResultingChanges
}

/** The commit of a group of transactions, which their answers wait for. */
interface PendingCommit {
  promise: Promise<void>
  resolve: () => void
  reject: (err: unknown) => void
}

/** What a value of the `meta` table must look like, and how to say so. */
export interface MetaShape {
  valid: (value: string) => boolean
  what: string
}

/** A random key of `bytes` bytes, in base64. */
export const keyShape = (bytes: number): MetaShape => ({
  valid: (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === bytes,
  what: `a ${bytes}-byte key in base64`,
})

/** A whole number from 0 to `max`, in decimal digits. */
export const countShape = (max: number, what: string): MetaShape => ({
  valid: (v) => /^\d{1,16}$/.test(v) && Number(v) <= max,
  what,
})

/** The sandbox's SQLite database, with a transaction helper that nests. */
export class Database {
  readonly db: DatabaseSync
  private depth = 0
  #groupCommit = false
  #pending: PendingCommit | undefined
  readonly #control = new Map<string, StatementSync>()

  readonly #path: string

  constructor(path: string) {
    this.#path = path
    const onDisk = path !== ':memory:' && path !== ''
    // The file holds the partner's secrets and the token signing key: only its owner may read it,
    // wherever --data puts it. SQLite gives the -wal and -shm files the mode of the database file.
    if (onDisk) closeSync(openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600))
    if (onDisk) for (const file of [path, `${path}-wal`, `${path}-shm`]) chmodPrivate(file)
    this.db = new DatabaseSync(path)
    this.db.exec('PRAGMA busy_timeout = 5000')
    // Savepoints (every request has one, see transaction) journal the pages they change; in a
    // temporary file that is two write system calls a page, in memory none.
    this.db.exec('PRAGMA temp_store = MEMORY')
    if (path !== ':memory:' && path !== '') {
      // WAL lets readers run beside the writer. NORMAL sync: a commit is in the WAL file (the
      // operating system's cache) when COMMIT returns, so it survives the process being killed; only
      // an operating-system crash or power cut can lose the last commits, each whole, never half
      // (docs/sandbox.md#durability).
      this.db.exec('PRAGMA journal_mode = WAL')
      for (const file of [`${path}-wal`, `${path}-shm`]) chmodPrivate(file)
      this.db.exec('PRAGMA synchronous = NORMAL')
      // The default 2 MB page cache is smaller than a busy sandbox's indexes.
      this.db.exec('PRAGMA cache_size = -65536')
    }
    this.migrate()
  }

  /**
   * Prepare `sql`, whose rows are `Row`: the row type is named once, here beside the SQL that
   * decides it, and every `get` and `all` of the statement answers it. Prepare once and keep the
   * statement (a constructor or a table of statements), not once per call.
   */
  prepare<Row extends Columns<Row> = never>(sql: string): Statement<Row> {
    // The one cast of a row: node:sqlite types every row as Record<string, SQLOutputValue>, and
    // only the SQL knows its columns. The statement itself is returned, with no wrapper, so a call
    // costs what StatementSync's does.
    return this.db.prepare(sql) as unknown as Statement<Row>
  }

  private migrate(): void {
    this.transaction(() => {
      this.db.exec(SCHEMA)
      this.db.exec(MONEY_SCHEMA)
      const row = this.prepare<{value: string}>("SELECT value FROM meta WHERE key = 'schema_version'").get()
      if (row === undefined) {
        this.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION))
      } else if (!/^\d{1,6}$/.test(row.value)) {
        throw this.#damaged('schema_version', row.value, 'a schema version')
      } else if (Number(row.value) > SCHEMA_VERSION) {
        throw new Error(
          `the sandbox data file was written by a newer payctl (schema ${row.value}, this one knows ${SCHEMA_VERSION})`,
        )
      } else if (Number(row.value) < SCHEMA_VERSION) {
        if (Number(row.value) < 2) this.db.exec(UPGRADE_TO_2)
        this.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION))
      }
    })
  }

  /**
   * Group commit, for a running sandbox: from now on the transactions of one turn of the event loop
   * (every request whose body arrived in it, a settlement tick) share one SQLite transaction,
   * committed once at the end of the turn by `flush`. Each keeps its all-or-nothing semantics
   * in a savepoint of its own. Whatever shows a transaction's outcome outside the process (an HTTP
   * answer, a webhook delivery) must wait for `committed()` or call `flush()` first.
   */
  groupCommits(): void {
    this.#groupCommit = true
  }

  /**
   * Run `fn` in a transaction and roll it back if `fn` throws (unless the error is marked with
   * keepWrites). A nested call runs in a savepoint, so a failing inner step undoes only its own
   * writes and the outer caller decides what to keep. Under group commit the outermost call is a
   * savepoint of the open group too, and its writes are durable once the group commits.
   */
  transaction<T>(fn: () => T): T {
    if (this.depth === 0 && this.#groupCommit) this.#openGroup()
    const savepoint = this.depth > 0 || this.#pending !== undefined ? `sp${this.depth}` : undefined
    this.#run(savepoint === undefined ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`)
    this.depth++
    try {
      const result = fn()
      this.#run(savepoint === undefined ? 'COMMIT' : `RELEASE ${savepoint}`)
      return result
    } catch (err) {
      if (keepsWrites(err)) this.#run(savepoint === undefined ? 'COMMIT' : `RELEASE ${savepoint}`)
      else if (savepoint === undefined) this.#run('ROLLBACK')
      else {
        this.#run(`ROLLBACK TO ${savepoint}`)
        this.#run(`RELEASE ${savepoint}`)
      }
      throw err
    } finally {
      this.depth--
    }
  }

  /** Run one of the few transaction-control statements, prepared once (every request runs several). */
  #run(sql: string): void {
    let statement = this.#control.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      this.#control.set(sql, statement)
    }
    statement.run()
  }

  #openGroup(): void {
    if (this.#pending !== undefined) return
    this.#run('BEGIN IMMEDIATE')
    let resolve!: () => void
    let reject!: (err: unknown) => void
    const promise = new Promise<void>((res, rej) => {
      resolve = res
      reject = rej
    })
    // A failed commit is reported to whoever waits for it; nobody waiting is no crash.
    promise.catch(() => undefined)
    this.#pending = {promise, resolve, reject}
    // After the I/O callbacks of this turn: every request that arrived in it joins the group.
    setImmediate(() => {
      try {
        this.flush()
      } catch {
        // Already passed on to the waiters.
      }
    })
  }

  /**
   * Settled once the writes made so far are committed; rejected if that commit failed (then none of
   * them exist). Undefined when nothing waits to be committed.
   */
  committed(): Promise<void> | undefined {
    return this.#pending?.promise
  }

  /** Commit the open group now, if there is one and no transaction is running. */
  flush(): void {
    const pending = this.#pending
    if (pending === undefined || this.depth > 0) return
    this.#pending = undefined
    try {
      this.#run('COMMIT')
    } catch (err) {
      if (this.db.isTransaction) this.#run('ROLLBACK')
      pending.reject(err)
      throw err
    }
    pending.resolve()
  }

  /**
   * Read a value of the `meta` table, or store `create()` under `key` the first time. A stored
   * value that is not `shape` (a damaged or hand-edited file) refuses to start: a sandbox that ran
   * on it would fail every request that reads it.
   */
  metaValue(key: string, create: () => string, shape: MetaShape): string {
    return this.transaction(() => {
      const row = this.prepare<{value: string}>('SELECT value FROM meta WHERE key = ?').get(key)
      if (row !== undefined) {
        if (!shape.valid(row.value)) throw this.#damaged(key, row.value, shape.what)
        return row.value
      }
      const value = create()
      this.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, value)
      return value
    })
  }

  #damaged(key: string, value: string, what: string): Error {
    const message = `the sandbox data file ${this.#path} is damaged: its ${key} is ${JSON.stringify(value.slice(0, 40))}, not ${what}; restore it from a copy, or start afresh with another --data`
    return Object.assign(new Error(message), {code: 'DATA_FILE_DAMAGED'})
  }

  close(): void {
    if (!this.db.isOpen) return
    this.flush()
    this.db.close()
  }
}
