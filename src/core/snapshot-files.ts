import {randomBytes} from 'node:crypto'
import {closeSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync, writeSync} from 'node:fs'
import {basename, dirname, join, resolve} from 'node:path'
import {SNAPSHOT_CHUNK_BYTES, type Snapshot} from '../contract/snapshots.js'
import type {PayctlClient} from './client.js'
import {PayctlError, usageError} from './errors.js'

/**
 * Copy the sandbox's snapshot `name` to `path` on this machine, chunk by chunk, into a hidden
 * temporary file renamed over `path` once whole and flushed: an interrupted copy, or a full disk,
 * leaves `path` as it was. Returns the bytes written.
 */
export async function downloadSnapshot(client: PayctlClient, name: string, path: string): Promise<number> {
  const target = resolve(path)
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.part`)
  let fd: number
  try {
    fd = openSync(temp, 'wx', 0o600)
  } catch (err) {
    throw fileProblem('--file', path, err)
  }
  try {
    let offset = 0
    for (;;) {
      const chunk = await client.call('readSnapshotFile', {params: {name}, query: {offset}})
      const data = Buffer.from(chunk.data, 'base64')
      let written = 0
      while (written < data.length) written += writeSync(fd, data, written, data.length - written)
      offset += data.length
      if (data.length === 0 || offset >= chunk.bytes) break
    }
    fsyncSync(fd)
    closeSync(fd)
    renameSync(temp, target)
    return offset
  } catch (err) {
    try {
      closeSync(fd)
    } catch {
      // Closed already.
    }
    rmSync(temp, {force: true})
    if (err instanceof PayctlError) throw err
    throw fileProblem('--file', path, err)
  }
}

/** Send the snapshot file at `path` to the sandbox, to be stored there as `name` once checked whole. */
export async function uploadSnapshot(client: PayctlClient, name: string, path: string): Promise<Snapshot> {
  let fd: number
  let size: number
  try {
    fd = openSync(path, 'r')
    size = statSync(path).size
  } catch (err) {
    throw fileProblem('--file', path, err)
  }
  try {
    const buffer = Buffer.alloc(SNAPSHOT_CHUNK_BYTES)
    let offset = 0
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, offset)
      const last = offset + read >= size || read === 0
      const sent = await client.call('writeSnapshotFile', {
        params: {name},
        body: {offset, data: buffer.subarray(0, read).toString('base64'), last},
      })
      offset += read
      if (last) {
        if (sent.snapshot === undefined) throw new Error('the sandbox did not store the file')
        return sent.snapshot
      }
    }
  } finally {
    closeSync(fd)
  }
}

function fileProblem(flag: string, path: string, err: unknown): PayctlError {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES' || code === 'ENOTDIR') {
    return usageError(
      `${flag} ${path}: ${code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`,
      'INVALID_FILE',
      {
        flag,
        path,
      },
    )
  }
  return new PayctlError({
    kind: 'config',
    code: 'FILE_NOT_WRITTEN',
    message: `${flag} ${path} was not written (${code ?? String(err)}): it is as it was`,
    details: {flag, path},
    cause: err,
  })
}
