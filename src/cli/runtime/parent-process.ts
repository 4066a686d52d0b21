/**
 * `PAYCTL_EXIT_WITH_PID=N`: payctl's process ends, as SIGTERM would end it, once process N is gone,
 * however it ended (a `kill -9` included). A program that starts payctl (a test runner, an editor's
 * task) sets it to its own pid, and every payctl it starts, sandboxes left running by `--detach`
 * among them (they inherit the variable), ends with it (docs/architecture.md, "Tests").
 */
export const EXIT_WITH_PID = 'PAYCTL_EXIT_WITH_PID'

/** How often the process is looked for: a payctl outlives it by at most this much. */
const EVERY_MS = 1000

/**
 * Look for the process PAYCTL_EXIT_WITH_PID names every second, and once it is gone end this one as
 * SIGTERM does: each command stops as it would then (a sandbox answers what it was answering and
 * closes its data file, `sandbox run` ends its command). The watch keeps nothing running that would
 * otherwise have ended.
 */
export function endWithProcess(env: Record<string, string | undefined>): void {
  const pid = Number(env[EXIT_WITH_PID])
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return
  const timer = setInterval(() => {
    try {
      process.kill(pid, 0)
    } catch (err) {
      // EPERM: it is there, someone else's.
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') return
      clearInterval(timer)
      process.kill(process.pid, 'SIGTERM')
    }
  }, EVERY_MS)
  timer.unref()
}
