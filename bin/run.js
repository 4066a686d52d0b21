#!/usr/bin/env node
import {execute} from '@oclif/core'

// An unknown command is a usage error: the not-found plugin says so (with "did you mean") but
// exits 127, the shell's code; payctl documents 2 for every usage error.
process.on('exit', (code) => {
  if (code === 127) process.exitCode = 2
})

await execute({dir: import.meta.url})
