import {closeSync, mkdirSync, rmSync, writeSync} from 'node:fs'
import {dirname} from 'node:path'
import {openPrivateAppend, readOwnFile} from '../config-dir.js'

/**
 * What the journal keeps of a created record: its id, and the fields other records of the fixture
 * refer to (`${wallets.a.currency}`), never the rest of the record, which may hold a secret (a
 * webhook's signing secret, which is never kept).
 */
export type JournalEntry = {key: string; id: string; fields?: Record<string, unknown>}

/**
 * An append-only log of the records a seed run created, one JSON line each, written as soon as
 * each record exists. A run killed halfway and started again skips what the journal lists; what
 * was created but not yet journalled is answered again by the service for the same idempotency key.
 */
export class Journal {
  readonly path: string
  // Open from the first append to close: one write call a record, not an open, a write and a close.
  #fd: number | undefined

  constructor(path: string) {
    this.path = path
  }

  read(): Map<string, JournalEntry> {
    const done = new Map<string, JournalEntry>()
    // A symbolic link there is not a journal of this run's: it is taken for none (the records it
    // would skip are created again, and the service answers them with the ones it made).
    let text: string | undefined
    try {
      text = readOwnFile(this.path)
    } catch {
      return done
    }
    if (text === undefined) return done
    for (const line of text.split('\n')) {
      if (!line.trim()) continue
      try {
        const entry = JSON.parse(line) as JournalEntry
        if (typeof entry.id === 'string') done.set(entry.key, entry)
      } catch {
        // A line cut short by a kill: that record is simply created (replayed) again.
      }
    }
    return done
  }

  clear(): void {
    this.close()
    rmSync(this.path, {force: true})
  }

  /** Write one entry; it is in the file (the operating system's) when this returns. */
  append(entry: JournalEntry): void {
    if (this.#fd === undefined) {
      mkdirSync(dirname(this.path), {recursive: true, mode: 0o700})
      // Never through a symbolic link planted there (or at a --journal path in a shared folder).
      this.#fd = openPrivateAppend(this.path).fd
    }
    writeSync(this.#fd, `${JSON.stringify(entry)}\n`)
  }

  close(): void {
    if (this.#fd === undefined) return
    closeSync(this.#fd)
    this.#fd = undefined
  }
}
