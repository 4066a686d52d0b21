import {mkdirSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const PREFIX = 'payctl-tests-'

/** Whether process `pid` is running (or is someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * What a test run sets up once, in the runner's process, before any test file (vitest's
 * globalSetup):
 * - a folder of its own for every temporary file, as TMPDIR, which the test processes and every
 *   program they start inherit: removed when the run ends; and the folders of earlier runs whose
 *   runner is gone (killed before it could remove its own), removed now;
 * - PAYCTL_EXIT_WITH_PID, the runner's pid: every payctl the run starts (a sandbox, one that
 *   --detach left running, a listener) ends within a second of the runner, however the runner ends
 *   (src/cli/runtime/parent-process.ts), and so does every test process (worker-setup.ts).
 */
export default function setup(): () => void {
  const base = tmpdir()
  for (const name of readdirSync(base)) {
    const pid = Number(name.startsWith(PREFIX) ? name.slice(PREFIX.length) : Number.NaN)
    if (Number.isInteger(pid) && !alive(pid)) rmSync(join(base, name), {recursive: true, force: true})
  }
  const root = join(base, `${PREFIX}${process.pid}`)
  mkdirSync(root, {recursive: true, mode: 0o700})
  process.env.TMPDIR = root
  process.env.PAYCTL_EXIT_WITH_PID = String(process.pid)
  return () => rmSync(root, {recursive: true, force: true})
}
