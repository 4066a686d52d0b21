/**
 * Run in each test process before its files (vitest's setupFiles): the process ends once the runner
 * that started it is gone (PAYCTL_EXIT_WITH_PID, set by run-setup.ts), however the runner ended, so
 * a killed run leaves no test process behind, nor a browser it drives.
 */
const runner = Number(process.env.PAYCTL_EXIT_WITH_PID)
const WATCH = Symbol.for('payctl.test.runner-watch')
const shared = globalThis as {[WATCH]?: NodeJS.Timeout}
if (shared[WATCH] === undefined && Number.isInteger(runner) && runner > 1 && runner !== process.pid) {
  shared[WATCH] = setInterval(() => {
    try {
      process.kill(runner, 0)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') process.exit(1)
    }
  }, 1000)
  shared[WATCH].unref()
}
