import {createHash, randomBytes} from 'node:crypto'
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  truncateSync,
  writeSync,
} from 'node:fs'
import {copyFile} from 'node:fs/promises'
import {dirname} from 'node:path'
import {z} from 'zod'
import {SNAPSHOT_FORMAT, SNAPSHOT_MAGIC, SNAPSHOT_SCOPES} from '../contract/snapshots.js'
import {SCHEMA_VERSION} from './database.js'
import {ApiError} from './errors.js'

/**
 * The snapshot file (format 2): the rows, as a SQLite file of the data file's tables, then a line
 * `PAYCTL-SNAPSHOT <format>` and a line of JSON (the header), which records the rows' length and
 * SHA-256. So the file is itself a database (`sqlite3 FILE` reads it), and the rows are copied to
 * and from it whole. Format 1 put the two lines first; it is still read. A file is checked whole
 * before anything reads its rows: another program's file, a newer format, a truncated or corrupted
 * copy are each refused as SNAPSHOT_INVALID, naming what is wrong.
 */

/** SQLite's application id of a snapshot's rows ("PYCT"): a file cut before its header is still known as one. */
export const SNAPSHOT_APPLICATION_ID = 0x50594354

export const SnapshotHeaderSchema = z.strictObject({
  name: z.string(),
  scope: z.enum(SNAPSHOT_SCOPES),
  partnerId: z.string(),
  createdAt: z.string(),
  records: z.number().int().min(0),
  schemaVersion: z.number().int().min(1),
  bodyBytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})
export type SnapshotHeader = z.infer<typeof SnapshotHeaderSchema>

/** A header read from a file, with where its rows start and the file's size. */
export interface ReadHeader extends SnapshotHeader {
  format: number
  bodyOffset: number
  fileBytes: number
}

const CHUNK = 1024 * 1024
/** More than any header: a file whose header lines are longer is not a snapshot. */
const HEADER_LIMIT = 64 * 1024
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

export function invalid(what: string, reason: string): ApiError {
  return new ApiError('SNAPSHOT_INVALID', `${what} is not a snapshot this payctl can restore: ${reason}`, {
    reason,
  })
}

/** Read and check the header of the file at `path`; `what` names it in a refusal. */
export function readHeader(path: string, what: string): ReadHeader {
  const fd = openSync(path, 'r')
  try {
    const fileBytes = fstatSync(fd).size
    const first = Buffer.alloc(Math.min(HEADER_LIMIT, fileBytes))
    readSync(fd, first, 0, first.length, 0)
    if (first.subarray(0, SNAPSHOT_MAGIC.length + 1).toString('latin1') === `${SNAPSHOT_MAGIC} `)
      return {...headerOf(first, what, 0), fileBytes}
    const lastStart = Math.max(0, fileBytes - HEADER_LIMIT)
    const last = Buffer.alloc(fileBytes - lastStart)
    readSync(fd, last, 0, last.length, lastStart)
    const at = last.lastIndexOf(`${SNAPSHOT_MAGIC} `)
    if (at < 0) {
      const ours =
        first.length >= 72 &&
        first.subarray(0, 16).equals(SQLITE_MAGIC) &&
        first.readUInt32BE(68) === SNAPSHOT_APPLICATION_ID
      throw invalid(
        what,
        ours
          ? 'it is truncated: the header at its end is missing'
          : `it has no "${SNAPSHOT_MAGIC}" header (not a payctl snapshot file)`,
      )
    }
    const trailer = lastStart + at
    const header = headerOf(last.subarray(at), what, trailer)
    if (header.bodyOffset !== fileBytes) {
      throw invalid(
        what,
        `it has ${fileBytes - header.bodyOffset} bytes past its header (a damaged or concatenated file)`,
      )
    }
    if (header.bodyBytes !== trailer) {
      throw invalid(
        what,
        `it is truncated or damaged: ${trailer} bytes of rows where its header says ${header.bodyBytes}`,
      )
    }
    return {...header, bodyOffset: 0, fileBytes}
  } finally {
    closeSync(fd)
  }
}

/**
 * The header in `lines` (its two lines, then whatever follows), which starts at `offset` in the
 * file; its bodyOffset is where the lines end.
 */
function headerOf(lines: Buffer, what: string, offset: number): Omit<ReadHeader, 'fileBytes'> {
  const first = lines.indexOf(10)
  const magic = lines.subarray(0, first < 0 ? Math.min(lines.length, 40) : first).toString('latin1')
  const match = /^PAYCTL-SNAPSHOT (\d{1,6})$/.exec(magic)
  if (match === null)
    throw invalid(what, `its "${SNAPSHOT_MAGIC}" line is damaged (not a payctl snapshot file)`)
  const format = Number(match[1])
  if (format > SNAPSHOT_FORMAT) {
    throw invalid(
      what,
      `it is in format ${format}, written by a newer payctl (this one reads up to ${SNAPSHOT_FORMAT}): upgrade payctl`,
    )
  }
  const second = lines.indexOf(10, first + 1)
  if (second < 0) throw invalid(what, 'its header is cut off (a truncated file)')
  let parsed: unknown
  try {
    parsed = JSON.parse(lines.subarray(first + 1, second).toString('utf8'))
  } catch {
    throw invalid(what, 'its header is not JSON (a corrupt file)')
  }
  const header = SnapshotHeaderSchema.safeParse(parsed)
  if (!header.success) throw invalid(what, `its header is damaged: ${z.prettifyError(header.error)}`)
  if (header.data.schemaVersion > SCHEMA_VERSION) {
    throw invalid(
      what,
      `its rows are in data file schema ${header.data.schemaVersion}, from a newer payctl (this one knows ${SCHEMA_VERSION}): upgrade payctl`,
    )
  }
  return {...header.data, format, bodyOffset: offset + second + 1}
}

/** Check that the file holds exactly the rows its header says, byte for byte. */
export function checkBody(path: string, header: ReadHeader, what: string): void {
  checkLength(header, what)
  const hash = createHash('sha256')
  copyRange(path, header.bodyOffset, header.bodyBytes, (chunk) => hash.update(chunk))
  if (hash.digest('hex') !== header.sha256)
    throw invalid(what, 'its checksum does not match its rows (a corrupt file)')
}

function checkLength(header: ReadHeader, what: string): void {
  // Format 2's header comes after the rows: readHeader has checked where they end.
  if (header.bodyOffset === 0) return
  const expected = header.bodyOffset + header.bodyBytes
  if (header.fileBytes < expected) {
    throw invalid(what, `it is truncated: ${header.fileBytes} bytes of ${expected}`)
  }
  if (header.fileBytes > expected) {
    throw invalid(
      what,
      `it has ${header.fileBytes - expected} bytes past its end (a damaged or concatenated file)`,
    )
  }
}

/**
 * Copy the rows of the file to `target`, a SQLite file of their own, checking them on the way: a
 * truncated, longer or altered file is refused and `target` removed. In format 2 the system copies
 * the file while this thread hashes it, on two cores at once.
 */
export async function extractBody(
  path: string,
  header: ReadHeader,
  target: string,
  what: string,
): Promise<void> {
  checkLength(header, what)
  try {
    const hash = createHash('sha256')
    if (header.bodyOffset === 0) {
      const copied = copyFile(path, target, constants.COPYFILE_EXCL)
      // Settled whatever the hash finds, so that a refusal removes a whole copy, not one still written.
      const settled = copied.then(
        () => undefined,
        (err: unknown) => err,
      )
      copyRange(path, 0, header.bodyBytes, (chunk) => hash.update(chunk))
      const failed = await settled
      if (failed !== undefined) throw failed
      chmodSync(target, 0o600)
      // The header goes: what is left is the rows alone.
      truncateSync(target, header.bodyBytes)
    } else {
      const fd = openSync(target, 'wx', 0o600)
      try {
        copyRange(path, header.bodyOffset, header.bodyBytes, (chunk) => {
          hash.update(chunk)
          writeAll(fd, chunk)
        })
      } finally {
        closeSync(fd)
      }
    }
    if (hash.digest('hex') !== header.sha256)
      throw invalid(what, 'its checksum does not match its rows (a corrupt file)')
  } catch (err) {
    // A file that was there before (COPYFILE_EXCL, 'wx') is someone else's: it stays.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(target, {force: true})
    throw err
  }
}

/**
 * Make the SQLite file `rows`, a temporary file beside `target`, the snapshot `target`: its header
 * (with the rows' length and checksum) appended, flushed to disk, then renamed over `target`. A
 * crash, a kill or a full disk on the way leaves `target` as it was (absent, or the previous
 * snapshot of that name), never half a file; on a failure `rows` is removed.
 */
export function sealSnapshotFile(
  target: string,
  rows: string,
  header: Omit<SnapshotHeader, 'bodyBytes' | 'sha256'>,
): SnapshotHeader {
  try {
    const hash = createHash('sha256')
    let bodyBytes = 0
    copyRange(rows, 0, Number.POSITIVE_INFINITY, (chunk) => {
      hash.update(chunk)
      bodyBytes += chunk.length
    })
    const full: SnapshotHeader = {...header, bodyBytes, sha256: hash.digest('hex')}
    const fd = openSync(rows, 'r+')
    try {
      writeAll(fd, Buffer.from(`${SNAPSHOT_MAGIC} ${SNAPSHOT_FORMAT}\n${JSON.stringify(full)}\n`), bodyBytes)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(rows, target)
    syncDirectory(dirname(target))
    return full
  } catch (err) {
    rmSync(rows, {force: true})
    throw err
  }
}

/** A name for a temporary file beside `target`: hidden, and never taken for a snapshot. */
export function temporaryBeside(target: string, suffix = '.tmp'): string {
  const dir = dirname(target)
  return `${dir}/.${target.slice(dir.length + 1)}.${randomBytes(6).toString('hex')}${suffix}`
}

function copyRange(path: string, start: number, length: number, onChunk: (chunk: Buffer) => void): void {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(CHUNK)
    let position = start
    let left = length
    while (left > 0) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK, left), position)
      if (read === 0) break
      onChunk(buffer.subarray(0, read))
      position += read
      left -= read
    }
  } finally {
    closeSync(fd)
  }
}

/** Write all of `chunk`, at `position` or where the file is. */
function writeAll(fd: number, chunk: Buffer, position?: number): void {
  let written = 0
  while (written < chunk.length) {
    const at = position === undefined ? null : position + written
    written += writeSync(fd, chunk, written, chunk.length - written, at)
  }
}

/** Make a rename durable: the directory's entry is flushed too (where the system allows it). */
function syncDirectory(dir: string): void {
  if (process.platform === 'win32') return
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
