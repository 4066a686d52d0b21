import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    // Tests start real sandbox processes and run the built CLI; give them room on 2-core machines.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Three files at a time even on 2 cores (the default would be one): most of a CLI test is
    // waiting for the processes it starts, and the suites are written to pass on a busy machine.
    maxWorkers: 3,
    // The built CLI that in-process runs load (test/helpers/cli.ts) is Node's to import, as
    // bin/run.js does: not transformed again for each test file.
    server: {deps: {external: [/\/dist\//]}},
    projects: [
      {
        // A command run in-process changes nothing of its process (src/cli/runtime.ts), so the CLI's
        // and the client's test files can share workers: each worker loads the built CLI once.
        extends: true,
        test: {name: 'cli', include: ['test/cli/**/*.test.ts', 'test/core/**/*.test.ts'], isolate: false},
      },
      {
        // The inspector in a real browser, against a sandbox process: one browser per file.
        extends: true,
        test: {name: 'browser', include: ['test/browser/**/*.test.ts']},
      },
      {
        // The sandbox keeps state in its modules (and one file mocks node:dns): a fresh worker each.
        extends: true,
        test: {name: 'service', include: ['test/sandbox/**/*.test.ts', 'test/*.test.ts']},
      },
    ],
  },
})
