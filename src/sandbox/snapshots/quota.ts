import {readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'

/**
 * How much each partner may keep in snapshot files, saved and uploaded alike, uploads under way
 * included: a partner of a shared sandbox can neither fill its disk nor make a restore read a file
 * of any size (docs/sandbox.md#quotas).
 */
export interface SnapshotQuota {
  files: number
  bytes: number
}

/** 100 files and 512 MiB: twice a snapshot of 100,000 seeded records. */
export const DEFAULT_SNAPSHOT_QUOTA: SnapshotQuota = {files: 100, bytes: 512 * 1024 * 1024}

const SUFFIX = '.snapshot'

/**
 * What the partner's folder `dir` holds, leaving out the snapshot file `file` (which what is being
 * stored replaces, so its upload too), and whether that file exists.
 */
export function usageOf(dir: string, file: string): {files: number; bytes: number; replacing: boolean} {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return {files: 0, bytes: 0, replacing: false}
  }
  const upload = `.${file.slice(0, -SUFFIX.length)}.upload`
  let files = 0
  let bytes = 0
  for (const name of names) {
    const counted =
      (name.endsWith(SUFFIX) && !name.startsWith('.')) || (name.startsWith('.') && name.endsWith('.upload'))
    if (!counted || name === file || name === upload) continue
    try {
      bytes += statSync(join(dir, name)).size
      files++
    } catch {
      // Gone since it was listed.
    }
  }
  return {files, bytes, replacing: names.includes(file)}
}
