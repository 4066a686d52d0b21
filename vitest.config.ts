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
  },
})
