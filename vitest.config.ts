import {defineConfig} from 'vitest/config'
import TierSequencer from './test/helpers/sequencer.js'

/**
 * The test tiers, a folder each, named for what they prove (README, "Tests"):
 *
 *   unit       pure code: no server, no process
 *   service    the sandbox over HTTP, served in the test's own process on a free port
 *   commands   payctl's commands, run from src/ in the test's process against sandboxes served there
 *   processes  what needs a process of payctl's own: the built bundle and its fast path, signals,
 *              exit codes, --detach, terminals, several processes at once, a kill and a restart
 *   browser    the inspector in headless Chromium
 *   soak       long seeded runs: a thousand records through faults, eight CI jobs at once, kill -9
 *
 * `npm test` runs them all (after the build the processes and the browser use); `npm run test:fast`
 * runs the first three, from src/ with no build. The release tier (test/release: installs of the
 * packed tarball) has a configuration of its own (vitest.release.config.ts, `npm run test:release`).
 */
const tier = (name: string, more: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: {name, include: [`test/${name}/**/*.test.ts`], ...more},
})

export default defineConfig({
  test: {
    // Tests start real sandbox processes and run the built CLI; give them room on 2-core machines.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Four files at a time even on 2 cores (the default would be one): much of a test is waiting
    // for the processes it starts or on a schedule, and the suites are written to pass on a busy machine.
    maxWorkers: 4,
    // The tiers whose files run longest start first (test/helpers/sequencer.ts).
    sequence: {sequencer: TierSequencer},
    // Where a run's temporary files go, and what ends what it started if it is killed.
    globalSetup: ['test/helpers/run-setup.ts'],
    // A test process whose runner is gone ends too.
    setupFiles: ['test/helpers/worker-setup.ts'],
    // The built CLI that process tests compare with is Node's to import: not transformed again.
    server: {deps: {external: [/\/dist\//]}},
    projects: [
      tier('unit', {isolate: false}),
      // Files share workers, each loading src/ once, but the one that mocks node:dns, which has its own.
      tier('service', {isolate: false, exclude: ['test/service/webhooks-safety.test.ts']}),
      {
        extends: true as const,
        test: {name: 'service-mocked', include: ['test/service/webhooks-safety.test.ts']},
      },
      // A command run in-process changes nothing of its process (src/cli/runtime.ts), so these files
      // share workers, each loading src/ once.
      tier('commands', {isolate: false}),
      tier('processes', {isolate: false}),
      // One browser per file.
      tier('browser'),
      tier('soak', {isolate: false}),
    ],
  },
})
