import {randomBytes} from 'node:crypto'
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
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

// Where the system has them (not Windows): an open that refuses a symbolic link as the path's last
// part, and one that fails rather than waits on a FIFO nobody reads.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0
const NONBLOCK = constants.O_NONBLOCK ?? 0

/** Whether an open with O_NOFOLLOW failed on a symbolic link (ELOOP; EMLINK on the BSDs). */
export function isLinkRefusal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'ELOOP' || code === 'EMLINK'
}

/** Create `path` 0600 whatever the umask, holding `text`; fails if anything (a link included) is there. */
function createPrivateFile(path: string, text: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600)
  try {
    fchmodSync(fd, 0o600)
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** A name beside `path` nobody else picks: a temporary file's. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
}

/**
 * Write a file only its owner can read, without following a symlink planted at `path`: the text
 * goes to a new file (created exclusively, never through a link) that then replaces `path` (the
 * link itself, if one was there), so the file is whole or absent, always 0600.
 */
export function writePrivateFile(path: string, text: string): void {
  const temp = tempPathFor(path)
  createPrivateFile(temp, text)
  try {
    renameSync(temp, path)
  } catch (err) {
    rmSync(temp, {force: true})
    throw err
  }
}

/**
 * Create, exclusively and 0600, a file holding `text` at a new name beside `path`, for the caller
 * to link or rename into place; the caller removes it.
 */
export function writePrivateTemp(path: string, text: string): string {
  const temp = tempPathFor(path)
  createPrivateFile(temp, text)
  return temp
}

/**
 * Open `path` to append to, creating it 0600, never writing through what was planted there: a
 * symbolic link, a FIFO or device, or a second name of another file is first replaced by a new
 * empty file (what a link pointed to is left as it was). `replaced` says what was there.
 */
export function openPrivateAppend(path: string): {fd: number; replaced: string | undefined} {
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK
  let replaced: string
  try {
    const fd = openSync(path, flags, 0o600)
    const st = fstatSync(fd)
    if (st.isFile() && st.nlink === 1) return {fd, replaced: undefined}
    closeSync(fd)
    replaced = st.isFile() ? 'a second name of another file' : 'not a regular file'
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (isLinkRefusal(err)) replaced = 'a symbolic link'
    else if (code === 'ENXIO') replaced = 'a FIFO'
    else throw err
  }
  writePrivateFile(path, '')
  const fd = openSync(path, flags, 0o600)
  const st = fstatSync(fd)
  if (!st.isFile() || st.nlink !== 1) {
    closeSync(fd)
    throw new Error(`${path} was replaced again while payctl replaced it`)
  }
  return {fd, replaced}
}

/**
 * The text of the regular file at `path`, or undefined when there is none: a symbolic link or
 * anything but a regular file there is taken for absent, never read through.
 */
export function readOwnFile(path: string): string | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || isLinkRefusal(err)) return undefined
    throw err
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * The folder `name` in the config dir `parent`, made 0700 if it is not there. A symbolic link
 * there is replaced by a folder of its own (what it pointed to is left as it was), and a folder
 * that others can write is refused, as the config dir is.
 */
export function privateSubdir(parent: string, name: string): string {
  const dir = join(parent, name)
  mkdirSync(parent, {recursive: true, mode: 0o700})
  if (lstatSync(dir, {throwIfNoEntry: false})?.isSymbolicLink()) unlinkSync(dir)
  try {
    mkdirSync(dir, {mode: 0o700})
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  assertConfigDir(dir)
  return dir
}
