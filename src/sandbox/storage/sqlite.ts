import {chmodSync, closeSync, constants, openSync} from 'node:fs'
import type * as Sqlite from 'node:sqlite'

/**
 * node:sqlite, the one way the sandbox reaches it: taken with process.getBuiltinModule() rather than
 * imported, because Node resolves every `import` of a module graph before it runs any of it, and an
 * older Node (without node:sqlite, or without getBuiltinModule) would then refuse `payctl/sandbox`
 * with ERR_UNKNOWN_BUILTIN_MODULE and a stack, naming nothing a user can act on. Loaded first by
 * index.ts, this fails instead with one line that says which Node the sandbox needs. The CLI never
 * meets it: bin/run.js hands every command to the Node 24 payctl depends on.
 */

/** The Node the sandbox needs: node:sqlite, and what else the sandbox uses of Node 24. */
export const SANDBOX_NODE_MAJOR = 24

/** Why the sandbox cannot run on this Node, in one line; undefined when it can. */
export function sandboxNodeProblem(
  version: string = process.version,
  hasSqlite: boolean = process.getBuiltinModule?.('node:sqlite') !== undefined,
): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1])
  if (major >= SANDBOX_NODE_MAJOR && hasSqlite) return undefined
  return `payctl/sandbox needs Node ${SANDBOX_NODE_MAJOR} or later (node:sqlite); this is Node ${version}. Run it on Node ${SANDBOX_NODE_MAJOR}, or start the sandbox with the payctl command (payctl sandbox start), which brings its own.`
}

function load(): typeof Sqlite {
  const problem = sandboxNodeProblem()
  if (problem !== undefined) throw new Error(problem)
  return process.getBuiltinModule('node:sqlite')
}

const sqlite = load()

export const DatabaseSync = sqlite.DatabaseSync
export type DatabaseSync = Sqlite.DatabaseSync

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
 * Open the data file `path` (':memory:' or '' for none) as the sandbox keeps it: readable by its
 * owner only, in WAL mode, with the connection's settings.
 */
export function openDataFile(path: string): DatabaseSync {
  const onDisk = path !== ':memory:' && path !== ''
  // The file holds the partner's secrets and the token signing key: only its owner may read it,
  // wherever --data puts it. SQLite gives the -wal and -shm files the mode of the database file.
  if (onDisk) closeSync(openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600))
  if (onDisk) for (const file of [path, `${path}-wal`, `${path}-shm`]) chmodPrivate(file)
  const db = new DatabaseSync(path)
  db.exec('PRAGMA busy_timeout = 5000')
  // Savepoints (every request has one, see transaction) journal the pages they change; in a
  // temporary file that is two write system calls a page, in memory none.
  db.exec('PRAGMA temp_store = MEMORY')
  if (onDisk) {
    // WAL lets readers run beside the writer. NORMAL sync: a commit is in the WAL file (the
    // operating system's cache) when COMMIT returns, so it survives the process being killed; only
    // an operating-system crash or power cut can lose the last commits, each whole, never half
    // (docs/sandbox.md#durability).
    db.exec('PRAGMA journal_mode = WAL')
    for (const file of [`${path}-wal`, `${path}-shm`]) chmodPrivate(file)
    db.exec('PRAGMA synchronous = NORMAL')
    // The default 2 MB page cache is smaller than a busy sandbox's indexes; 32 MB holds those of
    // 100,000 records and keeps the sandbox's memory under 200 MB (docs/performance.md#snapshots).
    db.exec('PRAGMA cache_size = -32768')
  }
  return db
}
