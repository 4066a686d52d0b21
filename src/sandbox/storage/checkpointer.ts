import {Worker} from 'node:worker_threads'
import type {Database} from './database.js'

/** How often the worker checkpoints. */
const INTERVAL_MS = 100
/**
 * WAL pages after which the sandbox's own connection checkpoints after a commit, as SQLite does by
 * default at 1,000. Under a load with no pause the WAL can only start over from a checkpoint
 * that follows a commit with no write in between, which the worker cannot time; by then it has
 * copied almost everything, so this one is short.
 */
const FALLBACK_PAGES = 4_096
/** The WAL file is cut back to this size when it starts over. */
const WAL_SIZE_LIMIT = 16 * 1024 * 1024

// Plain CommonJS run with `eval`, so that it survives bundling: no file of its own to find.
const WORKER_SOURCE = `
const {parentPort, workerData} = require('node:worker_threads')
const {DatabaseSync} = require('node:sqlite')
const db = new DatabaseSync(workerData.path)
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const timer = setInterval(() => {
  try {
    checkpoint.get()
  } catch {
    // Busy or interrupted: the next round tries again, and the fallback still works.
  }
}, workerData.intervalMs)
parentPort.once('message', () => {
  clearInterval(timer)
  db.close()
  parentPort.close()
})
`

export interface Checkpointer {
  /** Stop checkpointing; resolves once the worker has closed its connection. */
  stop(): Promise<void>
}

/**
 * Copy a file database's WAL back into the database from a worker thread, instead of in the
 * commit that crosses SQLite's threshold. That checkpoint flushes the disk twice and copied a
 * thousand pages, blocking the event loop for 20 to 100 ms every few hundred requests: most of the
 * sandbox's slowest answers. A PASSIVE checkpoint never blocks the writer, and does not change
 * what a commit guarantees (docs/sandbox.md#durability-and-group-commit).
 */
export function checkpointInBackground(database: Database, log?: (line: string) => void): Checkpointer {
  const path = database.db.location()
  if (path === null) return {stop: async () => {}}
  database.db.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_PAGES}`)
  database.db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`)
  let running: (() => Promise<void>) | undefined = startWorker(database, path, log)
  // A snapshot's restore replaces the file: the worker lets go of the old one first.
  const leave = database.accompany({
    pause: async () => {
      const stopping = running
      running = undefined
      await stopping?.()
    },
    resume: () => {
      database.db.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_PAGES}`)
      database.db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`)
      running = startWorker(database, path, log)
    },
  })
  return {
    stop: async () => {
      leave()
      await running?.()
      running = undefined
    },
  }
}

/** A worker checkpointing the file at `path`; the function returned stops it. */
function startWorker(database: Database, path: string, log?: (line: string) => void): () => Promise<void> {
  const worker = new Worker(WORKER_SOURCE, {eval: true, workerData: {path, intervalMs: INTERVAL_MS}})
  worker.unref()
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  worker.once('error', (err) => {
    // Back to SQLite's own checkpoints: slower answers now and then, nothing lost.
    log?.(`background checkpoints stopped: ${String(err)}`)
    if (database.db.isOpen) database.db.exec('PRAGMA wal_autocheckpoint = 1000')
  })
  return async () => {
    // Unreferenced, the worker would let the process end before it has closed its connection.
    worker.ref()
    worker.postMessage('stop')
    await exited
  }
}
