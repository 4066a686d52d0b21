import {randomBytes} from 'node:crypto'
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import {homedir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {PayctlError} from './errors.js'

/** Where payctl keeps its profile file, sandbox database and state: `PAYCTL_CONFIG_DIR` wins. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAYCTL_CONFIG_DIR) return env.PAYCTL_CONFIG_DIR
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'payctl')
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'payctl')
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'payctl')
}

/**
 * Why `dir` may not hold credentials, or undefined: other users can write it (group or world
 * writable), so they could plant a symlink or a file of their own where payctl writes or reads.
 */
export function configDirProblem(dir: string): string | undefined {
  if (process.platform === 'win32') return undefined
  let mode: number
  try {
    mode = statSync(dir).mode
  } catch {
    return undefined // not there yet: payctl creates it 0700
  }
  if ((mode & 0o022) === 0) return undefined
  return `the config dir ${dir} is writable by ${mode & 0o002 ? 'every user' : 'its group'} (mode ${(mode & 0o777).toString(8)}); others could replace what payctl keeps there`
}

/** Refuse a config dir that other users can write (see configDirProblem). */
export function assertConfigDir(dir: string): void {
  const problem = configDirProblem(dir)
  if (problem === undefined) return
  throw new PayctlError({
    kind: 'config',
    code: 'CONFIG_DIR_PERMISSIONS',
    message: problem,
    suggestions: [`Try: chmod 700 ${dir}`],
  })
}

/**
 * Write a file only its owner can read, without following a symlink planted at `path`: the text
 * goes to a new file (created exclusively, never through a link) that then replaces `path` (the
 * link itself, if one was there), so the file is whole or absent, always 0600.
 */
export function writePrivateFile(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o600,
  )
  try {
    fchmodSync(fd, 0o600) // whatever the umask
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    renameSync(temp, path)
  } catch (err) {
    rmSync(temp, {force: true})
    throw err
  }
}
