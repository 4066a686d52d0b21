import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Config, Errors, execute, run} from '@oclif/core'
import {onStdoutClosed} from './io.js'
import {isolatedRuntime, type RuntimeOptions, runIn} from './runtime.js'

/** The package root and its package.json, which oclif would otherwise look for, directory by directory, and read again. */
function loadOptions(): {root: string; pjson: Config['pjson']} {
  // Two levels up from src/cli and from dist/bundle alike.
  const root = new URL('../../', import.meta.url)
  return {root: fileURLToPath(root), pjson: JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))}
}

/**
 * The CLI proper, which `bin/run.js` loads from the bundle (`dist/bundle/main.js`) once it has
 * ruled out the fast paths.
 */
export async function main(): Promise<void> {
  // The reader of stdout went away (`payctl --help | head -3`): nothing more can be shown, so stop
  // quietly with the exit code so far, instead of a warning about a promise left pending.
  onStdoutClosed(() => process.exit())
  await execute({loadOptions: loadOptions()})
}

/**
 * Run one payctl command in this process, in a runtime of its own (`options`: its streams and
 * environment), and resolve with its exit code where `main` would exit: how the test suite runs
 * most commands (test/helpers/cli.ts). Nothing of the process is changed (its streams, env, exit
 * code), so runs may overlap. Each run loads oclif's configuration afresh, as a process does: a run
 * keeps state in it (topic help leaves its topic's commands misread).
 */
export async function runCommand(args: string[], options: RuntimeOptions): Promise<number> {
  const runtime = isolatedRuntime(options)
  return runIn(runtime, async () => {
    try {
      await run(args, await Config.load(loadOptions()))
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

/** Test streams for an in-process run, so that a test needs nothing of payctl but the bundle. */
export {testIO} from './io.js'
