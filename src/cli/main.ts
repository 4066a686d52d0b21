import {execute} from '@oclif/core'

/** The CLI proper, which `bin/run.js` loads from the bundle (`dist/bundle/main.js`). */
export async function main(): Promise<void> {
  // An unknown command is a usage error: the not-found plugin says so (with "did you mean") but
  // exits 127, the shell's code; payctl documents 2 for every usage error.
  process.on('exit', (code) => {
    if (code === 127) process.exitCode = 2
  })
  await execute({dir: import.meta.url})
}
