import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real sandbox processes and run the built CLI; give them room on 2-core machines.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time even on 2 cores (the default would be one): most of a CLI test is waiting
    // for the processes it starts, and the suites are written to pass on a busy machine.
    maxWorkers: 2,
    // The built CLI that in-process runs load (test/helpers/cli.ts) is Node's to import, as
    // bin/run.js does: not transformed again for each test file.
    server: {deps: {external: [/\/dist\//]}},
  },
})
