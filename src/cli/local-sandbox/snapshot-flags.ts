import {existsSync} from 'node:fs'
import {resolve} from 'node:path'
import {Flags} from '@oclif/core'
import {SNAPSHOT_NAME_RULE, type Snapshot, SnapshotName} from '../../contract/index.js'
import {PayctlError, usageError} from '../../core/index.js'
import type {Column} from '../rendering/output.js'

/** The flags and views of `sandbox snapshot …` (docs/sandbox.md#snapshots). */

/** A snapshot's name as given, checked before anything is sent. */
export function snapshotName(name: string, what = 'NAME'): string {
  if (!SnapshotName.safeParse(name).success) {
    throw usageError(
      `snapshot name ${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)} is not one: use ${SNAPSHOT_NAME_RULE}`,
      'INVALID_ARGUMENT',
      {argument: what, value: name.slice(0, 80)},
    )
  }
  return name
}

export const snapshotFileFlag = Flags.string({
  summary: 'a snapshot file on this machine: where save writes a copy, or what restore reads',
  helpValue: 'PATH',
})

export const allFlag = Flags.boolean({
  summary: 'the whole sandbox, every partner (the operator only)',
  default: false,
})

/** Sizes as people read them: 1.2 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

export const snapshotColumns: Column<Snapshot>[] = [
  {header: 'NAME', get: (s) => s.name, kind: 'name'},
  {header: 'SCOPE', get: (s) => s.scope},
  {header: 'SAVED', get: (s) => s.createdAt, kind: 'time'},
  {header: 'ROWS', get: (s) => String(s.records)},
  {header: 'SIZE', get: (s) => formatBytes(s.bytes)},
]

/** A refusal of `--all` by a partner that is not the operator, with how to act as it. */
export function operatorOnlySnapshot(err: unknown, operatorProfile: string): never {
  if (err instanceof PayctlError && err.code === 'INSUFFICIENT_PERMISSIONS') {
    err.suggestions.unshift(
      `Only the operator (the partner the sandbox started with) saves or restores the whole sandbox: add --profile ${operatorProfile}`,
    )
  }
  throw err
}

/**
 * What `--from-snapshot` names: a file where one exists at that path, else a snapshot's name
 * (refused here when it cannot be one, so nothing starts).
 */
export function snapshotSource(value: string): {path: string} | {name: string} {
  if (existsSync(value)) return {path: resolve(value)}
  if (SnapshotName.safeParse(value).success) return {name: value}
  throw usageError(
    `--from-snapshot ${value}: no such file, and not a snapshot name (${SNAPSHOT_NAME_RULE})`,
    'SNAPSHOT_NOT_FOUND',
    {
      flag: '--from-snapshot',
      value,
    },
  )
}

/** A snapshot that --from-snapshot names but cannot start from: the sandbox did not start. */
export function snapshotStartFailure(err: Error & {code: string}, from: string): PayctlError {
  if (err.code === 'NOT_FOUND') {
    return new PayctlError({
      kind: 'usage',
      code: 'SNAPSHOT_NOT_FOUND',
      message: `--from-snapshot ${from}: no such snapshot file, nor a snapshot of that name of this sandbox's operator`,
      details: {flag: '--from-snapshot', value: from},
      suggestions: [
        'List the snapshots: payctl sandbox snapshot list',
        'Or give a snapshot file: --from-snapshot ./FILE.snapshot',
      ],
      cause: err,
    })
  }
  return new PayctlError({
    kind: 'api',
    code: err.code,
    message: err.message,
    details: {flag: '--from-snapshot'},
    cause: err,
  })
}
