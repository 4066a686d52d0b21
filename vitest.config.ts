import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real sandbox processes and run the built CLI; give them room on 2-core machines.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})
