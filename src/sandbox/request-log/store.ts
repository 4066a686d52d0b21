import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import type {RequestLogEntry} from '../../contract/request-log.js'

/** A line of the log as kept: the entry and its position in the log, counted from its first line. */
export interface StoredEntry extends RequestLogEntry {
  seq: number
}

/** How much of the log is kept. */
export interface LogBounds {
  /** Bytes the current file grows to before it is rotated to `.1` (0 for a log kept in memory). */
  fileBytes: number
  /** Lines kept in memory: the whole log of a `:memory:` sandbox, the newest of one with a data file. */
  ringEntries: number
}

/** Beside a data file: two files of at most 4 MiB each (about 15,000 lines each), the newest 1,000 lines in memory too. */
export const FILE_BOUNDS: LogBounds = {fileBytes: 4 * 1024 * 1024, ringEntries: 1_000}
/** For `:memory:`: the newest 10,000 lines, in memory only. */
export const MEMORY_BOUNDS: LogBounds = {fileBytes: 0, ringEntries: 10_000}

/** The log file beside a data file; its previous generation adds `.1`. */
export const requestLogPath = (dataFile: string): string => `${dataFile}-requests.log`

// Where the system has them (not Windows): refuse a link as the path's last part, and a FIFO nobody reads.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0
const NONBLOCK = constants.O_NONBLOCK ?? 0
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK

/**
 * The request log: the newest lines in a ring in memory, and, beside a data file, every line
 * appended to a file of newline-delimited JSON that is rotated when it reaches its bound (the
 * previous file becomes `.1`, replacing the one before). Lines are written once per turn of the
 * event loop, not once per request; a reader gets what is pending first.
 */
export class RequestLogStore {
  readonly #bounds: LogBounds
  readonly #path: string | undefined
  readonly #ring: (StoredEntry | undefined)[]
  #start = 0
  #count = 0
  /** The position of the newest line (0: none yet). */
  #seq = 0
  #fd: number | undefined
  #size = 0
  #pending: string[] = []
  #flushing: NodeJS.Immediate | undefined
  readonly #warn: (line: string) => void
  #warned = false

  /** A log in memory (`path` undefined), or in the file at `path` and its `.1`. */
  constructor(path: string | undefined, bounds: LogBounds, warn: (line: string) => void = () => {}) {
    this.#path = path
    this.#bounds = bounds
    this.#warn = warn
    this.#ring = new Array(bounds.ringEntries)
    if (path !== undefined) {
      this.#open(path)
      this.#seq = lastSeq(path)
    }
  }

  /** The position of the newest line. */
  get newest(): number {
    return this.#seq
  }

  /** The file it is kept in, if any. */
  get path(): string | undefined {
    return this.#path
  }

  append(entry: RequestLogEntry): void {
    const stored: StoredEntry = {seq: ++this.#seq, ...entry}
    const capacity = this.#ring.length
    this.#ring[(this.#start + this.#count) % capacity] = stored
    if (this.#count < capacity) this.#count++
    else this.#start = (this.#start + 1) % capacity
    if (this.#fd === undefined) return
    this.#pending.push(`${JSON.stringify(stored)}\n`)
    this.#flushing ??= setImmediate(() => this.flush()).unref()
  }

  /**
   * Every line after position `after`, oldest first: from memory when it holds them all, else from
   * the files (what rotation dropped is gone).
   */
  *after(after: number): Generator<StoredEntry> {
    if (this.#fd === undefined || after >= this.#seq - this.#count) {
      for (const entry of this.#inMemory()) if (entry.seq > after) yield entry
      return
    }
    for (const entry of this.#fromFiles()) if (entry.seq > after) yield entry
  }

  /** The newest `limit` lines that `match`, oldest first. */
  latest(limit: number, match: (entry: StoredEntry) => boolean): StoredEntry[] {
    const found: StoredEntry[] = []
    const memory = [...this.#inMemory()]
    for (let i = memory.length - 1; i >= 0 && found.length < limit; i--) {
      const entry = memory[i] as StoredEntry
      if (match(entry)) found.push(entry)
    }
    // Memory held enough, or all there is.
    if (found.length === limit || this.#fd === undefined || this.#count === this.#seq) return found.reverse()
    const all: StoredEntry[] = []
    for (const entry of this.#fromFiles()) {
      if (!match(entry)) continue
      all.push(entry)
      if (all.length > limit) all.shift()
    }
    return all
  }

  /** Write what is pending to the file, rotating it first when the lines would take it past its bound. */
  flush(): void {
    if (this.#flushing !== undefined) clearImmediate(this.#flushing)
    this.#flushing = undefined
    if (this.#fd === undefined || this.#pending.length === 0) return
    const text = this.#pending.join('')
    this.#pending = []
    const bytes = Buffer.byteLength(text)
    try {
      if (this.#size > 0 && this.#size + bytes > this.#bounds.fileBytes) this.#rotate()
      writeSync(this.#fd, text)
      this.#size += bytes
    } catch (err) {
      // A full disk loses log lines, never a request.
      if (!this.#warned) this.#warn(`request log: cannot write ${this.#path}: ${(err as Error).message}`)
      this.#warned = true
    }
  }

  close(): void {
    this.flush()
    if (this.#fd !== undefined) closeSync(this.#fd)
    this.#fd = undefined
  }

  *#inMemory(): Generator<StoredEntry> {
    const capacity = this.#ring.length
    for (let i = 0; i < this.#count; i++) yield this.#ring[(this.#start + i) % capacity] as StoredEntry
  }

  *#fromFiles(): Generator<StoredEntry> {
    this.flush()
    const path = this.#path as string
    for (const file of [`${path}.1`, path]) yield* readEntries(file)
  }

  #rotate(): void {
    const path = this.#path as string
    closeSync(this.#fd as number)
    this.#fd = undefined
    // A rename replaces whatever is at `.1`, a planted link included, and follows none.
    renameSync(path, `${path}.1`)
    this.#open(path)
  }

  /** Open the file to append, replacing anything at `path` that is not a regular file of one name. */
  #open(path: string): void {
    let fd = openAppend(path)
    if (fd === undefined) {
      unlinkSync(path)
      fd = openSync(path, APPEND | constants.O_EXCL, 0o600)
    }
    fchmodSync(fd, 0o600)
    this.#fd = fd
    this.#size = fstatSync(fd).size
    // A line cut short by a crash ends here, so that the next starts on a line of its own.
    if (this.#size > 0 && tailOf(path, 1) !== '\n') {
      writeSync(fd, '\n')
      this.#size++
    }
  }
}

/** An fd appending to `path`, or undefined where something other than a regular file of one name is there. */
function openAppend(path: string): number | undefined {
  let fd: number
  try {
    fd = openSync(path, APPEND, 0o600)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'EMLINK' || code === 'ENXIO') return undefined
    throw err
  }
  const st = fstatSync(fd)
  if (st.isFile() && st.nlink === 1) return fd
  closeSync(fd)
  return undefined
}

/** The last `n` bytes of the file open at `fd`, of `size` bytes. */
function lastBytes(fd: number, size: number, n: number): string {
  const length = Math.min(n, size)
  const buffer = Buffer.alloc(length)
  readSync(fd, buffer, 0, length, size - length)
  return buffer.toString('utf8')
}

/** The lines of a log file, oldest first; a damaged line, or a file that is not a regular one, is skipped. */
function* readEntries(file: string): Generator<StoredEntry> {
  let text: string
  try {
    const fd = openSync(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK)
    try {
      const st = fstatSync(fd)
      if (!st.isFile()) return
      const buffer = Buffer.alloc(st.size)
      readSync(fd, buffer, 0, st.size, 0)
      text = buffer.toString('utf8')
    } finally {
      closeSync(fd)
    }
  } catch {
    return
  }
  for (const line of text.split('\n')) {
    const entry = parseLine(line)
    if (entry !== undefined) yield entry
  }
}

function parseLine(line: string): StoredEntry | undefined {
  if (line === '') return undefined
  try {
    const entry = JSON.parse(line) as StoredEntry
    return typeof entry?.seq === 'number' && typeof entry.requestId === 'string' ? entry : undefined
  } catch {
    return undefined
  }
}

/** The position of the newest line the files hold, so that a restarted sandbox continues after it. */
function lastSeq(path: string): number {
  for (const file of [path, `${path}.1`]) {
    const lines = tailOf(file, 64 * 1024).split('\n')
    for (let i = lines.length - 1; i >= 0; i--) {
      const entry = parseLine(lines[i] as string)
      if (entry !== undefined) return entry.seq
    }
  }
  return 0
}

/** The last `bytes` bytes of a regular file (its first line there may be cut), or '' for none. */
function tailOf(file: string, bytes: number): string {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK)
  } catch {
    return ''
  }
  try {
    const st = fstatSync(fd)
    return st.isFile() ? lastBytes(fd, st.size, bytes) : ''
  } finally {
    closeSync(fd)
  }
}
