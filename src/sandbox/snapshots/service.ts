import {closeSync, fstatSync, openSync, readSync, renameSync, rmSync, statSync, writeSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {SNAPSHOT_CHUNK_BYTES, type Snapshot} from '../../contract/snapshots.js'
import {ApiError} from '../http/api-error.js'
import {checkBody, readHeader} from './file.js'
import {describe, type SnapshotStore} from './store.js'

/** A chunk of the caller's snapshot file `name`, from `offset`. */
export function readChunk(
  store: SnapshotStore,
  partnerId: string,
  name: string,
  offset: number,
): {offset: number; bytes: number; data: string} {
  const {path} = store.find(partnerId, name)
  const fd = openSync(path, 'r')
  try {
    const bytes = fstatSync(fd).size
    const buffer = Buffer.alloc(Math.max(0, Math.min(SNAPSHOT_CHUNK_BYTES, bytes - offset)))
    const read = buffer.length === 0 ? 0 : readSync(fd, buffer, 0, buffer.length, offset)
    return {offset, bytes, data: buffer.subarray(0, read).toString('base64')}
  } finally {
    closeSync(fd)
  }
}

/**
 * Take a chunk of a snapshot file sent to be stored as `name`: the chunks go, in order, to a hidden
 * file beside the snapshots, each admitted by the partner's quota first (SNAPSHOT_QUOTA_EXCEEDED,
 * and the upload discarded, past it); the last one has the whole file checked (SNAPSHOT_INVALID, and
 * the upload discarded, when it is not a snapshot file), then renamed into place. What its rows hold
 * is checked when it is restored.
 */
export async function writeChunk(
  store: SnapshotStore,
  partnerId: string,
  name: string,
  chunk: {offset: number; data: string; last?: boolean | undefined},
): Promise<{name: string; received: number; snapshot?: Snapshot}> {
  const target = store.pathOf(partnerId, name)
  const upload = join(dirname(target), `.${name}.upload`)
  store.ensureDir(partnerId)
  const data = Buffer.from(chunk.data, 'base64')
  const fd = openUpload(upload, chunk.offset)
  let received: number
  try {
    const size = fstatSync(fd).size
    if (size !== chunk.offset) throw wrongOffset(chunk.offset, size)
    try {
      store.admitUpload(partnerId, name, size, data.length)
    } catch (err) {
      rmSync(upload, {force: true})
      throw err
    }
    let written = 0
    while (written < data.length)
      written += writeSync(fd, data, written, data.length - written, size + written)
    received = size + data.length
  } finally {
    closeSync(fd)
  }
  if (chunk.last !== true) return {name, received}
  try {
    const header = readHeader(upload, `the file sent as ${name}`)
    await checkBody(upload, header, `the file sent as ${name}`)
    renameSync(upload, target)
    return {name, received, snapshot: describe(header, statSync(target).size, name)}
  } finally {
    rmSync(upload, {force: true})
  }
}

/** The upload file, started afresh at offset 0; a later chunk of an upload never begun is refused. */
function openUpload(upload: string, offset: number): number {
  try {
    return openSync(upload, offset === 0 ? 'w' : 'r+', 0o600)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw wrongOffset(offset, 0)
    throw err
  }
}

function wrongOffset(offset: number, size: number): ApiError {
  return new ApiError('VALIDATION_ERROR', `This upload has ${size} bytes: send the chunk at offset ${size}`, {
    field: 'offset',
    value: offset,
    received: size,
  })
}
