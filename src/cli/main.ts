import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Config, Errors, execute, run} from '@oclif/core'

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
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    process.exit()
  })
  await execute({loadOptions: loadOptions()})
}

/**
 * Run one payctl command in this process and resolve with its exit code where `main` would exit:
 * how the test suite runs most commands (test/helpers/cli.ts). Output goes to process.stdout and
 * process.stderr as in a process of its own. Each run loads oclif's configuration afresh, as a
 * process does: a run keeps state in it (topic help leaves its topic's commands misread).
 */
export async function runCommand(args: string[]): Promise<number> {
  process.exitCode = undefined
  try {
    await run(args, await Config.load(loadOptions()))
    return Number(process.exitCode ?? 0)
  } catch (err) {
    // Errors the commands render themselves end in oclif's exit signal; others (an unknown
    // command) are printed here, as oclif's handler does for a process.
    const error = err as Error & {oclif?: {exit?: number}}
    if (!(err instanceof Errors.ExitError)) process.stderr.write(` ›   Error: ${error.message}\n`)
    return error.oclif?.exit ?? 1
  } finally {
    process.exitCode = undefined
  }
}
