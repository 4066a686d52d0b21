import {spawn} from 'node:child_process'

/**
 * Stop process `pid` (SIGSTOP), for a test of what does not answer. A stopped process runs nothing of
 * its own, not even what ends it with the test run (PAYCTL_EXIT_WITH_PID), so a watcher beside it
 * kills it once the run is gone, however the run ended; the watcher ends with the process.
 */
export function suspend(pid: number): void {
  const runner = process.env.PAYCTL_EXIT_WITH_PID ?? String(process.pid)
  const watch =
    'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -KILL "$2" 2>/dev/null'
  spawn('sh', ['-c', watch, 'payctl-test-suspend', runner, String(pid)], {
    detached: true,
    stdio: 'ignore',
  }).unref()
  process.kill(pid, 'SIGSTOP')
}
