import {existsSync} from 'node:fs'
import {type Browser, chromium} from 'playwright-core'

/**
 * A real browser for the inspector's tests: Debian's Chromium (`/usr/bin/chromium`, which `.ci/run`
 * installs where it is missing), or the one PAYCTL_CHROMIUM names. Headless, without Chromium's
 * own sandbox (CI runs as root, where it cannot start).
 */

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/** The browser to drive, or undefined where none is installed. */
export function chromiumPath(
  env: NodeJS.ProcessEnv = process.env,
  candidates: readonly string[] = CANDIDATES,
): string | undefined {
  if (env.PAYCTL_CHROMIUM) return env.PAYCTL_CHROMIUM
  return candidates.find((path) => existsSync(path))
}

/**
 * Whether the browser tests run here: with a browser, yes; without one, they are skipped on a
 * developer's machine, and under CI they fail, so that a missing browser never passes for green.
 */
export function browserTestsRun(
  env: NodeJS.ProcessEnv = process.env,
  candidates: readonly string[] = CANDIDATES,
): boolean {
  if (chromiumPath(env, candidates) !== undefined) return true
  if (env.CI) {
    throw new Error(
      `no browser for the inspector's tests: none of ${candidates.join(', ')} exists (apt-get install chromium, or set PAYCTL_CHROMIUM)`,
    )
  }
  return false
}

export function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath()
  if (executablePath === undefined) throw new Error('no browser to launch')
  return chromium.launch({executablePath, headless: true, args: ['--no-sandbox']})
}
