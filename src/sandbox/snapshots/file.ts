import {createHash, createHmac, randomBytes, timingSafeEqual} from 'node:crypto'
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
} from 'node:fs'
import {copyFile, open} from 'node:fs/promises'
import {dirname} from 'node:path'
import {z} from 'zod'
import {SNAPSHOT_FORMAT, SNAPSHOT_MAGIC, SNAPSHOT_SCOPES} from '../../contract/snapshots.js'
import {ApiError} from '../http/api-error.js'
import {SCHEMA_VERSION} from '../storage/database.js'

/**
 * The snapshot file (format 3): the rows, as a SQLite file of the data file's tables, then a line
 * `PAYCTL-SNAPSHOT <format>` and a line of JSON (the header), which records the rows' length and
 * SHA-256. So the file is itself a database (`sqlite3 FILE` reads it), and the rows are copied to
 * and from it whole. Format 1 put the two lines first; it is still read. A file is checked whole
 * before anything reads its rows: another program's file, a newer format, a truncated or corrupted
 * copy are each refused as SNAPSHOT_INVALID, naming what is wrong. Format 3 adds the header's seal,
 * which proves a file was written by a sandbox holding the snapshot key (sealOf).
 *
 * The rows are hashed and copied without holding up the requests the sandbox serves meanwhile: in
 * chunks read as a stream, and by the system's copy, however large the file.
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
  /** HMAC-SHA256 of what the header says of its rows, with the key of the sandbox that wrote it. */
  seal: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
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
export async function checkBody(path: string, header: ReadHeader, what: string): Promise<void> {
  checkLength(header, what)
  if ((await hashRange(path, header.bodyOffset, header.bodyBytes)) !== header.sha256)
    throw invalid(what, 'its checksum does not match its rows (a corrupt file)')
}

/**
 * The seal of a header: what it says of its rows (their checksum among it), signed with `key`. Only a
 * sandbox holding the key makes one; the name is left out, as an upload may store a file under another.
 */
export function sealOf(header: Omit<SnapshotHeader, 'name' | 'seal'>, key: Buffer): string {
  const {scope, partnerId, createdAt, records, schemaVersion, bodyBytes, sha256} = header
  return createHmac('sha256', key)
    .update(
      JSON.stringify([
        SNAPSHOT_MAGIC,
        scope,
        partnerId,
        createdAt,
        records,
        schemaVersion,
        bodyBytes,
        sha256,
      ]),
    )
    .digest('hex')
}

/** Whether the header's seal was made with `key`: the file was written by a sandbox that holds it. */
export function isSealedBy(header: SnapshotHeader, key: Buffer): boolean {
  if (header.seal === undefined) return false
  return timingSafeEqual(Buffer.from(header.seal, 'hex'), Buffer.from(sealOf(header, key), 'hex'))
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
 * truncated, longer or altered file is refused and `target` removed. In format 2 and later the system
 * copies the file while this process hashes it, on two cores at once.
 */
export async function extractBody(
  path: string,
  header: ReadHeader,
  target: string,
  what: string,
): Promise<void> {
  checkLength(header, what)
  try {
    let sha256: string
    if (header.bodyOffset === 0) {
      const copied = copyFile(path, target, constants.COPYFILE_EXCL)
      // Settled whatever the hash finds, so that a refusal removes a whole copy, not one still written.
      const settled = copied.then(
        () => undefined,
        (err: unknown) => err,
      )
      const hashed = hashRange(path, 0, header.bodyBytes).catch((err: unknown) => err)
      const [failed, hash] = await Promise.all([settled, hashed])
      if (failed !== undefined) throw failed
      if (typeof hash !== 'string') throw hash
      sha256 = hash
      chmodSync(target, 0o600)
      // The header goes: what is left is the rows alone.
      truncateSync(target, header.bodyBytes)
    } else {
      const out = await open(target, 'wx', 0o600)
      try {
        sha256 = await hashRange(path, header.bodyOffset, header.bodyBytes, (chunk) =>
          out.write(chunk).then(() => undefined),
        )
      } finally {
        await out.close()
      }
    }
    if (sha256 !== header.sha256) throw invalid(what, 'its checksum does not match its rows (a corrupt file)')
  } catch (err) {
    // A file that was there before (COPYFILE_EXCL, 'wx') is someone else's: it stays.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(target, {force: true})
    throw err
  }
}

/**
 * Make the SQLite file `rows`, a temporary file beside `target`, the snapshot `target`: its header
 * (with the rows' length and checksum, sealed with `key`) appended, flushed to disk, then renamed over
 * `target`. A crash, a kill or a full disk on the way leaves `target` as it was (absent, or the
 * previous snapshot of that name), never half a file; on a failure `rows` is removed. `admit` sees the
 * header and size before the rename, and may refuse it (a quota).
 */
export async function sealSnapshotFile(
  target: string,
  rows: string,
  header: Omit<SnapshotHeader, 'bodyBytes' | 'sha256' | 'seal'>,
  key: Buffer,
  admit: (bytes: number) => void = () => undefined,
): Promise<SnapshotHeader> {
  try {
    const bodyBytes = fstatSize(rows)
    const sha256 = await hashRange(rows, 0, bodyBytes)
    const unsealed = {...header, bodyBytes, sha256}
    const full: SnapshotHeader = {...unsealed, seal: sealOf(unsealed, key)}
    const trailer = Buffer.from(`${SNAPSHOT_MAGIC} ${SNAPSHOT_FORMAT}\n${JSON.stringify(full)}\n`)
    admit(bodyBytes + trailer.length)
    const file = await open(rows, 'r+')
    try {
      await file.write(trailer, 0, trailer.length, bodyBytes)
      await file.sync()
    } finally {
      await file.close()
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

/**
 * The SHA-256 of `length` bytes of the file from `start`, read a chunk at a time into one buffer (each
 * chunk hashed, then given to `onChunk`): the requests served meanwhile wait for one chunk at most,
 * and a file of any size takes one chunk of memory.
 */
async function hashRange(
  path: string,
  start: number,
  length: number,
  onChunk?: (chunk: Buffer) => Promise<void>,
): Promise<string> {
  const hash = createHash('sha256')
  const file = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(CHUNK)
    for (let position = start, left = length; left > 0; ) {
      const {bytesRead} = await file.read(buffer, 0, Math.min(CHUNK, left), position)
      if (bytesRead === 0) break
      const chunk = buffer.subarray(0, bytesRead)
      hash.update(chunk)
      if (onChunk !== undefined) await onChunk(chunk)
      position += bytesRead
      left -= bytesRead
    }
  } finally {
    await file.close()
  }
  return hash.digest('hex')
}

function fstatSize(path: string): number {
  const fd = openSync(path, 'r')
  try {
    return fstatSync(fd).size
  } finally {
    closeSync(fd)
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
