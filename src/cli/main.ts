import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {execute} from '@oclif/core'

/**
 * The CLI proper, which `bin/run.js` loads from the bundle (`dist/bundle/main.js`) once it has
 * ruled out the fast paths.
 */
export async function main(): Promise<void> {
  const root = new URL('../../', import.meta.url)
  // The reader of stdout went away (`payctl --help | head -3`): nothing more can be shown, so stop
  // quietly with the exit code so far, instead of a warning about a promise left pending.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    process.exit()
  })
  // The package root and its package.json, which oclif would otherwise look for, directory by
  // directory, and read again. Two levels up from src/cli and from dist/bundle alike.
  const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))
  await execute({loadOptions: {root: fileURLToPath(root), pjson}})
}
