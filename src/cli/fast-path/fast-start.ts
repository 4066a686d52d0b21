import {statSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {currentRuntime} from '../runtime/runtime.js'
import {type Generated, type Handover, matchArgv} from './fast-table.js'
import {helpSlot, readHelp} from './help-cache.js'
import {runOneCall} from './one-call-load.js'

/**
 * The start of bin/run.js's fast path (dist/bundle/fast.js), before anything else of payctl loads.
 */

/**
 * Run `argv` without oclif where the fast path can: a one-call command (fast-path.ts, loaded only
 * then: one-call-load.ts), or help kept by an earlier run (help-cache.ts). Resolves with undefined when the run is
 * done, else with what to hand to the full CLI.
 */
export async function fastStart(
  argv: readonly string[],
  generated: Generated,
): Promise<Handover | undefined> {
  const run = matchArgv(argv, generated.commands)
  if (run !== undefined) return runOneCall(run)
  const runtime = currentRuntime()
  const slot = helpSlot(argv, {
    build: generated.build,
    stamp: stamp(),
    configDir: runtime.configDir,
    env: runtime.env,
    stdout: runtime.io.out,
    targets: generated.targets,
  })
  if (slot === undefined) return {}
  const help = readHelp(slot)
  if (help === undefined) return {help: slot}
  runtime.io.out.write(help)
  return undefined
}

/**
 * What else help depends on: the package's own files (its version and topics, the command
 * manifest), should they change after the build, and the Node that runs it (root help names it).
 */
function stamp(): string {
  const root = new URL('../../', import.meta.url)
  const files = ['package.json', 'oclif.manifest.json'].map((f) => {
    const st = statSync(fileURLToPath(new URL(f, root)), {throwIfNoEntry: false})
    return st === undefined ? '-' : `${st.size}.${Math.round(st.mtimeMs)}`
  })
  return [...files, process.version, process.platform, process.arch].join('-')
}
