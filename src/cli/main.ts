import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Config, Errors, execute, run} from '@oclif/core'
import {PriorAnswer} from '../core/transport.js'
import type {Handover} from './fast-path/fast-table.js'
import {writeHelp} from './fast-path/help-cache.js'
import {onStdoutClosed, recordOutput} from './runtime/io.js'
import {endWithProcess} from './runtime/parent-process.js'
import {isolatedRuntime, processRuntime, type RuntimeOptions, runIn} from './runtime/runtime.js'

/** The package root and its package.json, which oclif would otherwise look for, directory by directory, and read again. */
function loadOptions(): {root: string; pjson: Config['pjson']} {
  // Two levels up from src/cli and from dist/bundle alike.
  const root = new URL('../../', import.meta.url)
  return {root: fileURLToPath(root), pjson: JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))}
}

/**
 * The CLI proper, which `bin/run.js` loads from the bundle (`dist/bundle/main.js`) when its fast
 * path did not finish the run, with what that path hands over (fast-path/fast-start.ts): the answer its
 * request already got, which the command's first request takes instead of asking again, and
 * where to keep the help this run prints (fast-path/help-cache.ts).
 */
export async function main(handover: Handover = {}): Promise<void> {
  // The reader of stdout went away (`payctl --help | head -3`): nothing more can be shown, so stop
  // quietly with the exit code so far, instead of a warning about a promise left pending.
  onStdoutClosed(() => process.exit())
  endWithProcess(processRuntime().env)
  if (handover.prior !== undefined) processRuntime().prior = new PriorAnswer(handover.prior)
  const recorded = handover.help === undefined ? undefined : recordOutput()
  await execute({loadOptions: loadOptions()})
  if (handover.help === undefined || recorded === undefined) return
  const {stdout, stderr} = recorded()
  // Only a help text printed whole, and nothing else: not an error, not a warning.
  if (stderr === 0 && stdout !== '' && (processRuntime().exitCode ?? 0) === 0) {
    try {
      writeHelp(handover.help, stdout)
    } catch {
      // A help text not kept is printed again next time: nothing to tell.
    }
  }
}

/**
 * Run one payctl command in this process, in a runtime of its own (`options`: its streams and
 * environment), and resolve with its exit code where `main` would exit: how the test suite runs
 * most commands (test/helpers/cli.ts). Nothing of the process is changed (its streams, env, exit
 * code), so runs may overlap. Each run loads oclif's configuration afresh (`loadConfig`: by
 * default as a process does, its commands those of the build), since a run keeps state in it
 * (topic help leaves its topic's commands misread). `handover`: what bin/run.js's fast path handed
 * over (inRuntime), as `main` takes it.
 */
export async function runCommand(
  args: string[],
  options: RuntimeOptions & {handover?: Handover},
  loadConfig: () => Promise<Config> = () => Config.load(loadOptions()),
): Promise<number> {
  const runtime = isolatedRuntime(options)
  if (options.handover?.prior !== undefined) runtime.prior = new PriorAnswer(options.handover.prior)
  return runIn(runtime, async () => {
    try {
      await run(args, await loadConfig())
      return runtime.exitCode ?? 0
    } catch (err) {
      // Errors the commands render themselves end in oclif's exit signal; others (an unknown
      // command) are printed here, as oclif's handler does for a process.
      const error = err as Error & {oclif?: {exit?: number}}
      if (!(err instanceof Errors.ExitError)) runtime.io.err.write(` ›   Error: ${error.message}\n`)
      return error.oclif?.exit ?? 1
    }
  })
}

/**
 * Run `work` in a runtime of its own (`options`), as runCommand runs a command: how the tests run
 * bin/run.js's fast path (dist/bundle/fast.js) in their process, its handover then given to
 * runCommand. Resolves with what `work` resolved with and the exit code the run set.
 */
export async function inRuntime<T>(
  options: RuntimeOptions,
  work: () => Promise<T>,
): Promise<{value: T; exitCode: number}> {
  const runtime = isolatedRuntime(options)
  const value = await runIn(runtime, work)
  return {value, exitCode: runtime.exitCode ?? 0}
}

/** Test streams for an in-process run, so that a test needs nothing of payctl but the bundle. */
export {testIO} from './runtime/io.js'
