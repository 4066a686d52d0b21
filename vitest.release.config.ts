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
    // One file at a time: each packs the checkout's build (scripts/build.ts --pack swaps dist for a
    // copy, and --unpack back) or rebuilds it, which another file's pack must not meet half-done.
    fileParallelism: false,
    globalSetup: ['test/helpers/run-setup.ts'],
    setupFiles: ['test/helpers/worker-setup.ts'],
  },
})
