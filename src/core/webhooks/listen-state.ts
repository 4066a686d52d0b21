import {randomBytes} from 'node:crypto'
import {closeSync, linkSync, mkdirSync, renameSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {
  configDir,
  openPrivateAppend,
  privateSubdir,
  readOwnFile,
  writePrivateFile,
  writePrivateTemp,
} from '../config-dir.js'
import {PayctlError} from '../errors.js'

/** What became of a delivery this machine handled: the answer acknowledged to the sandbox. */
export interface DeliveryOutcome {
  forwarded: boolean
  status?: number | undefined
  durationMs?: number | undefined
  body?: string | undefined
  error?: string | undefined
}

/** Journal entries older than this are dropped: the sandbox's replay window is 1 hour. */
export const JOURNAL_KEEP_MS = 2 * 60 * 60 * 1000
/** How often a long-running listener drops the expired entries (at start, and then this often). */
export const JOURNAL_TRIM_EVERY_MS = 10 * 60 * 1000

interface JournalEntry {
  d: string
  at: number
  o: DeliveryOutcome
}

/** Whether an outcome settles the delivery (the sandbox will not retry it). */
export function settles(outcome: DeliveryOutcome): boolean {
  return !outcome.forwarded || (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300)
}

/**
 * What `webhooks listen` keeps per profile between runs, in `<config dir>/webhooks/`:
 * - the listener key, so a restarted listen resumes the same sandbox session (same signing secret,
 *   and the deliveries made while it was away);
 * - a journal of the deliveries it settled, written before each acknowledgement, so a delivery the
 *   sandbox sends again because the acknowledgement was lost (the link dropped, the process died)
 *   is acknowledged again instead of being forwarded twice. A failed forward is not journalled:
 *   the sandbox's retry of it must reach the receiver again.
 */
export class ListenState {
  readonly listenerKey: string
  readonly #journalPath: string
  /** Settled deliveries by id, oldest first (the order they were journalled in). */
  readonly #handled = new Map<string, JournalEntry>()
  readonly #now: () => number
  #trimmedAt: number

  private constructor(listenerKey: string, journalPath: string, entries: JournalEntry[], now: () => number) {
    this.listenerKey = listenerKey
    this.#journalPath = journalPath
    this.#now = now
    this.#trimmedAt = now()
    for (const e of entries) this.#handled.set(e.d, e)
  }

  /**
   * The listener key of `profile`, created on first use. Two processes starting at once agree on
   * one key: the new key is written whole to a file of its own, then linked into place, which
   * fails for the second process, which then reads the first one's key.
   */
  static key(profile: string, dir = privateSubdir(configDir(), 'webhooks')): string {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    const path = join(dir, `listen-${encodeURIComponent(profile)}.json`)
    // Never through a symbolic link: a key planted there would join someone else's session.
    const read = () => (JSON.parse(readOwnFile(path) ?? '') as {listenerKey: string}).listenerKey
    try {
      return read()
    } catch {
      // none yet (or unreadable, or a link): make one
    }
    const key = `lk_${randomBytes(16).toString('hex')}`
    const temp = writePrivateTemp(path, `${JSON.stringify({listenerKey: key})}\n`)
    try {
      linkSync(temp, path)
      return key
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw cause
      try {
        return read() // another process made it first
      } catch {
        renameSync(temp, path) // a file that was never a key (cut short, edited), or a link: replace it
        return key
      }
    } finally {
      rmSync(temp, {force: true})
    }
  }

  /** Load (or create) the state of `profile`. */
  static open(
    profile: string,
    dir = privateSubdir(configDir(), 'webhooks'),
    options: {now?: () => number} = {},
  ): ListenState {
    const now = options.now ?? Date.now
    const key = ListenState.key(profile, dir)
    const base = join(dir, `listen-${encodeURIComponent(profile)}`)
    const journalPath = `${base}.journal`
    const cutoff = now() - JOURNAL_KEEP_MS
    let entries: JournalEntry[] = []
    try {
      // A symbolic link there is taken for no journal: its entries would have deliveries
      // acknowledged without being forwarded.
      entries = (readOwnFile(journalPath) ?? '')
        .split('\n')
        .flatMap((line) => {
          try {
            return line === '' ? [] : [JSON.parse(line) as JournalEntry]
          } catch {
            return [] // a line cut short by a killed process
          }
        })
        .filter((e) => e.at >= cutoff)
    } catch {
      // no journal yet
    }
    writePrivateFile(journalPath, entries.map((e) => `${JSON.stringify(e)}\n`).join(''))
    return new ListenState(key, journalPath, entries, now)
  }

  /** The outcome of a delivery settled before (by this process or an earlier one). */
  settled(deliveryId: string): DeliveryOutcome | undefined {
    return this.#handled.get(deliveryId)?.o
  }

  /** Remember a settled delivery, durably, before acknowledging it; failures are not kept. */
  record(deliveryId: string, outcome: DeliveryOutcome): void {
    if (!settles(outcome)) return
    const entry: JournalEntry = {d: deliveryId, at: this.#now(), o: outcome}
    try {
      const {fd} = openPrivateAppend(this.#journalPath)
      try {
        writeSync(fd, `${JSON.stringify(entry)}\n`)
      } finally {
        closeSync(fd)
      }
    } catch (cause) {
      throw new PayctlError({
        kind: 'config',
        code: 'LISTEN_JOURNAL_UNWRITABLE',
        message: `cannot write the listen journal ${this.#journalPath}: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`,
        suggestions: [
          'Check the permissions and the free space of the config directory (PAYCTL_CONFIG_DIR).',
        ],
        cause,
      })
    }
    this.#handled.set(deliveryId, entry)
    if (entry.at - this.#trimmedAt >= JOURNAL_TRIM_EVERY_MS) this.#trim(entry.at)
  }

  /** Forget the entries past keeping, in memory and in the journal (rewritten whole, then renamed). */
  #trim(now: number): void {
    this.#trimmedAt = now
    const cutoff = now - JOURNAL_KEEP_MS
    let dropped = 0
    for (const [id, e] of this.#handled) {
      if (e.at >= cutoff) break
      this.#handled.delete(id)
      dropped++
    }
    if (dropped === 0) return
    try {
      writePrivateFile(
        this.#journalPath,
        [...this.#handled.values()].map((e) => `${JSON.stringify(e)}\n`).join(''),
      )
    } catch {
      // Housekeeping only: the longer journal still works, and the next start trims it.
    }
  }
}
