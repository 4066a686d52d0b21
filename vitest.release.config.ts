import {defineConfig} from 'vitest/config'

/**
 * The release tier: payctl as a user gets it, installed from the packed tarball (`npm pack`), on
 * the machine's own Node and npm. Slow (it packs and installs), so not in `npm test`: `.ci/run` runs
 * it after, with `npm run test:release`.
 */
export default defineConfig({
  test: {
    name: 'release',
    include: ['test/release/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/helpers/run-setup.ts'],
    setupFiles: ['test/helpers/worker-setup.ts'],
  },
})
