import {createHash, randomBytes} from 'node:crypto'
import {closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'
import {dirname} from 'node:path'
import {z} from 'zod'
import {SNAPSHOT_FORMAT, SNAPSHOT_MAGIC, SNAPSHOT_SCOPES} from '../contract/snapshots.js'
import {SCHEMA_VERSION} from './database.js'
import {ApiError} from './errors.js'

/**
 * The snapshot file: a line `PAYCTL-SNAPSHOT <format>`, a line of JSON (the header), then the rows
 * as a SQLite file of the data file's tables, whose length and SHA-256 the header records. A file
 * is checked whole before anything reads its rows: another program's file, a newer format, a
 * truncated or corrupted copy are each refused as SNAPSHOT_INVALID, naming what is wrong.
 */

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
/** More than any header: a file whose first lines are longer is not a snapshot. */
const HEADER_LIMIT = 64 * 1024

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
    const head = Buffer.alloc(Math.min(HEADER_LIMIT, fileBytes))
    readSync(fd, head, 0, head.length, 0)
    const first = head.indexOf(10)
    const magic = head.subarray(0, first < 0 ? Math.min(head.length, 40) : first).toString('latin1')
    const match = /^PAYCTL-SNAPSHOT (\d{1,6})$/.exec(magic)
    if (match === null)
      throw invalid(what, `it does not start with "${SNAPSHOT_MAGIC}" (not a payctl snapshot file)`)
    const format = Number(match[1])
    if (format > SNAPSHOT_FORMAT) {
      throw invalid(
        what,
        `it is in format ${format}, written by a newer payctl (this one reads up to ${SNAPSHOT_FORMAT}): upgrade payctl`,
      )
    }
    const second = head.indexOf(10, first + 1)
    if (second < 0) throw invalid(what, 'its header is cut off (a truncated file)')
    let parsed: unknown
    try {
      parsed = JSON.parse(head.subarray(first + 1, second).toString('utf8'))
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
    return {...header.data, format, bodyOffset: second + 1, fileBytes}
  } finally {
    closeSync(fd)
  }
}

/** Check that the file holds exactly the rows its header says, byte for byte. */
export function checkBody(path: string, header: ReadHeader, what: string): void {
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
  const hash = createHash('sha256')
  copyRange(path, header.bodyOffset, header.bodyBytes, (chunk) => hash.update(chunk))
  if (hash.digest('hex') !== header.sha256)
    throw invalid(what, 'its checksum does not match its rows (a corrupt file)')
}

/** Copy the rows of a checked file to `target`, a SQLite file of their own. */
export function extractBody(path: string, header: ReadHeader, target: string): void {
  const fd = openSync(target, 'wx', 0o600)
  try {
    copyRange(path, header.bodyOffset, header.bodyBytes, (chunk) => writeAll(fd, chunk))
  } finally {
    closeSync(fd)
  }
}

/**
 * Write the snapshot file `target` from the SQLite file `body`, atomically: a temporary file beside
 * it, flushed to disk, then renamed over it. A crash, a kill or a full disk on the way leaves the
 * target as it was (absent, or the previous snapshot of that name), never half a file.
 */
export function writeSnapshotFile(
  target: string,
  body: string,
  header: Omit<SnapshotHeader, 'bodyBytes' | 'sha256'>,
): SnapshotHeader {
  const hash = createHash('sha256')
  let bodyBytes = 0
  copyRange(body, 0, Number.POSITIVE_INFINITY, (chunk) => {
    hash.update(chunk)
    bodyBytes += chunk.length
  })
  const full: SnapshotHeader = {...header, bodyBytes, sha256: hash.digest('hex')}
  const temp = temporaryBeside(target)
  try {
    const fd = openSync(temp, 'wx', 0o600)
    try {
      writeAll(fd, Buffer.from(`${SNAPSHOT_MAGIC} ${SNAPSHOT_FORMAT}\n${JSON.stringify(full)}\n`))
      copyRange(body, 0, bodyBytes, (chunk) => writeAll(fd, chunk))
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, target)
    syncDirectory(dirname(target))
  } catch (err) {
    rmSync(temp, {force: true})
    throw err
  }
  return full
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

function writeAll(fd: number, chunk: Buffer): void {
  let written = 0
  while (written < chunk.length) written += writeSync(fd, chunk, written, chunk.length - written)
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
