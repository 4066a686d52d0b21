import {spawn} from 'node:child_process'
import type {Env} from '../runtime/io.js'

/**
 * Whether `sandbox ui` opens its link itself: only for a person at a terminal (stdout a TTY), never
 * under CI, --json or --no-browser, so that a script or a test gets the link printed and nothing
 * else happens.
 */
export function opensBrowser(o: {stdoutIsTTY: boolean; env: Env; json: boolean; browser: boolean}): boolean {
  return o.browser && o.stdoutIsTTY && !o.json && !o.env.CI
}

/** The system's opener of a URL, as a command and its arguments. */
export function openerOf(url: string, platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]]
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url]]
  return ['xdg-open', [url]]
}

/**
 * Open a URL in the default browser, in the background; false when the opener could not start (no
 * desktop: the link is printed anyway).
 */
export function openBrowser(url: string): Promise<boolean> {
  const [command, args] = openerOf(url)
  return new Promise((resolve) => {
    const child = spawn(command, args, {stdio: 'ignore', detached: true})
    child.once('error', () => resolve(false))
    child.once('spawn', () => {
      child.unref()
      resolve(true)
    })
  })
}
