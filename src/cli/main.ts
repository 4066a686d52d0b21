import {readFileSync, writeSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {execute} from '@oclif/core'
import {closest} from 'fastest-levenshtein'

/**
 * The CLI proper, which `bin/run.js` loads from the bundle (`dist/bundle/main.js`) once it has
 * ruled out the fast paths.
 */
export async function main(): Promise<void> {
  const root = new URL('../../', import.meta.url)
  // An unknown command is a usage error: the not-found plugin says so (with "did you mean") but
  // exits 127, the shell's code; payctl documents 2 for every usage error.
  process.on('exit', (code) => {
    if (code !== 127) return
    process.exitCode = 2
    // The plugin asks "did you mean" only when stdin is a terminal; otherwise nobody would answer,
    // so the suggestion is printed instead.
    if (!process.stdin.isTTY) suggestCommand(root)
  })
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

/** Print the command closest to the mistyped one (the words before the first flag), from the manifest. */
function suggestCommand(root: URL): void {
  try {
    const manifest = JSON.parse(readFileSync(new URL('oclif.manifest.json', root), 'utf8')) as {
      commands: Record<string, {hidden?: boolean}>
    }
    const ids = Object.entries(manifest.commands)
      .filter(([, c]) => !c.hidden)
      .map(([id]) => id)
    const words = process.argv.slice(2)
    const firstFlag = words.findIndex((w) => w.startsWith('-'))
    const typed = firstFlag === -1 ? words : words.slice(0, firstFlag)
    if (ids.length === 0 || typed.length === 0) return
    writeSync(2, `Did you mean payctl ${closest(typed.join(':'), ids).replaceAll(':', ' ')}?\n`)
  } catch {
    // only a hint: never let it hide the error itself
  }
}
