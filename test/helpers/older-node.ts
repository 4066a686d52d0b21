import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {delimiter, join} from 'node:path'

/** The major version of the `node` at `path`, or undefined when it does not answer as one. */
function majorOf(path: string): number | undefined {
  const version = spawnSync(path, ['--version'], {encoding: 'utf8'}).stdout?.trim() ?? ''
  return /^v\d+/.test(version) ? Number(version.slice(1).split('.')[0]) : undefined
}

/**
 * A `node` older than 24 on this machine (the machine's own, outside npm's PATH, whose first `node`
 * is the pinned Node 24), if there is one: what a user's older Node does with payctl.
 */
export function olderNode(): string | undefined {
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node'))
  for (const candidate of [...onPath, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue
    const major = majorOf(candidate)
    if (major !== undefined && major < 24) return candidate
  }
  return undefined
}
