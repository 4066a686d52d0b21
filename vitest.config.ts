import {defineConfig} from 'vitest/config'
import TierSequencer from './test/helpers/sequencer.js'

/**
 * The test tiers, a folder each, named for what they prove (docs/architecture.md, "Tests"):
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
 * runs the first three, from src/ with no build (`vitest run test/unit test/service test/commands`).
 * The release tier (test/release: installs of the packed tarball, a build under a running payctl)
 * has a configuration of its own (vitest.release.config.ts, `npm run test:release`).
 *
 * Every tier but the browser's runs as one project whose files share their test processes: a
 * command run in-process changes nothing of its process (src/cli/runtime/runtime.ts), a sandbox served in
 * one keeps nothing of another, so src/ is loaded once per test process, not once per file. The
 * file that mocks node:dns, and the browser's, have processes of their own.
 */
const ISOLATED = ['test/service/webhooks-safety.test.ts', 'test/browser/**/*.test.ts']

export default defineConfig({
  test: {
    // A deadline for a test that hangs, not a measure of speed: a fuzz test's few seconds of CPU
    // take ten times that on a 2-core runner with eight busy processes beside it, and more on a
    // busier one. No test waits for its deadline to pass.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three files at a time on 2 cores: much of a process test is waiting on its processes, and a
    // fourth costs more in test processes (each loads src/) than it wins (measured).
    maxWorkers: 3,
    // The tiers whose files run longest start first (test/helpers/sequencer.ts).
    sequence: {sequencer: TierSequencer},
    // Where a run's temporary files go, and what ends what it started if it is killed.
    globalSetup: ['test/helpers/run-setup.ts'],
    // A test process whose runner is gone ends too.
    setupFiles: ['test/helpers/worker-setup.ts'],
    // The built CLI that process tests compare with is Node's to import: not transformed again.
    server: {deps: {external: [/\/dist\//]}},
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/{unit,service,commands,processes,soak}/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
        },
      },
      {extends: true, test: {name: 'isolated', include: ISOLATED}},
    ],
  },
})
