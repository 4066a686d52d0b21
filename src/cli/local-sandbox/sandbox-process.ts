import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {closeSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync} from 'node:fs'
import {networkInterfaces} from 'node:os'
import {join, resolve} from 'node:path'
import type {SandboxHealth} from '../../contract/index.js'
import {
  assertConfigDir,
  configDir,
  DEFAULT_LOCAL_URL,
  isLocalUrl,
  openPrivateAppend,
  PayctlError,
  type ProfileStore,
  probeSandbox,
  readOwnFile,
  storedProfile,
  writePrivateFile,
} from '../../core/index.js'

/** What a running `payctl sandbox start` leaves in the config dir so `stop` and `status` can find it. */
export interface SandboxState {
  pid: number
  url: string
  host: string
  port: number
  data: string
  startedAt: string
  logFile?: string | undefined
  /**
   * Its partner credentials, so that `auth login --env local` works again after a logout removed
   * them from the profile. The file is 0600 in the config dir, beside the profile file.
   */
  credentials?: {apiKey: string; apiSecret: string; partnerId: string} | undefined
  /** The profile its operator's credentials were written to (`sandbox partners` acts as it). */
  profile?: string | undefined
  /** The browser inspector's address; null under --no-ui (absent: written by an older payctl). */
  inspector?: string | null | undefined
}

/**
 * The profile of the operator of this config dir's sandbox: the one `sandbox start` wrote, `local`
 * unless it was told otherwise.
 */
export function operatorProfile(dir: string): string {
  const profile = readState(dir)?.profile
  return typeof profile === 'string' && profile !== '' ? profile : 'local'
}

/** Every function here takes the config dir `dir` the sandbox belongs to. */
export const statePath = (dir: string) => join(dir, 'sandbox.json')
const defaultDataPath = (dir: string) => join(dir, 'sandbox.db')

/**
 * The data file in the config dir, refused when it or its -wal or -shm is a symbolic link: the
 * sandbox would write its secrets where the link points, and a database is not replaced the way
 * the other files there are, since that would lose its data.
 */
export function defaultDataFile(dir: string): string {
  const path = defaultDataPath(dir)
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!lstatSync(file, {throwIfNoEntry: false})?.isSymbolicLink()) continue
    throw new PayctlError({
      kind: 'config',
      code: 'CONFIG_FILE_LINK',
      message: `${file} is a symbolic link (to ${readlinkSync(file)}); the sandbox keeps its data, secrets included, only in a file of its own`,
      suggestions: [`Try: rm ${file} (the link only), or name the data file with --data`],
    })
  }
  return path
}
export const logPath = (dir: string) => join(dir, 'sandbox.log')

/**
 * The key that seals the snapshot files of this config dir's sandboxes (docs/sandbox.md#snapshots):
 * made the first time, kept 0600 in `snapshot.key`, and given to every sandbox that `sandbox start`
 * and `sandbox run` start from here, so that each restores the others' files as they are. It never
 * leaves the config dir: no answer, log or snapshot holds it.
 */
export function snapshotKey(dir: string): string {
  const path = join(dir, 'snapshot.key')
  const kept = readOwnFile(path)?.trim()
  if (kept !== undefined && /^[A-Za-z0-9+/]{43}=$/.test(kept)) return kept
  const key = randomBytes(32).toString('base64')
  mkdirSync(dir, {recursive: true, mode: 0o700})
  writePrivateFile(path, `${key}\n`)
  return key
}

/**
 * The state file, if it is one payctl could have written: a regular file (not a symlink) of this
 * user that nobody else can write, naming a pid and an http URL on this machine. Anything else is taken for
 * absent: `stop` would signal its pid and `auth login --env local` send credentials to its URL.
 */
export function readState(dir: string): SandboxState | undefined {
  try {
    const st = lstatSync(statePath(dir))
    if (!st.isFile() || (st.mode & 0o022) !== 0) return undefined
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return undefined
    const state = JSON.parse(readFileSync(statePath(dir), 'utf8')) as SandboxState
    if (!Number.isSafeInteger(state.pid) || state.pid <= 1) return undefined
    if (typeof state.url !== 'string' || !/^http:\/\//.test(state.url) || !onThisMachine(state.url))
      return undefined
    return state
  } catch {
    return undefined
  }
}

/** Whether a URL names this machine: loopback, the unspecified address, or one of the machine's own addresses. */
function onThisMachine(url: string): boolean {
  if (isLocalUrl(url)) return true
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address === host))
}

/** Write the state file: 0600, never through a symlink, in a config dir only its owner can write. */
export function writeState(dir: string, state: SandboxState): void {
  assertConfigDir(dir)
  writePrivateFile(statePath(dir), `${JSON.stringify(state, null, 2)}\n`)
}

/**
 * Whether `pid` is a running `payctl sandbox start`, as far as this system lets us see another
 * process's command line (Linux: /proc); elsewhere, whether it is alive.
 */
export function isSandboxProcess(pid: number): boolean {
  if (!isAlive(pid)) return false
  let cmdline: string
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return process.platform !== 'linux'
  }
  const args = cmdline.split('\0')
  const at = args.indexOf('sandbox')
  return at > 0 && args[at + 1] === 'start'
}

/** Whether process `pid` is stopped (Ctrl-Z, SIGSTOP). Linux only: elsewhere, false. */
function isSuspended(pid: number): boolean {
  try {
    // /proc/PID/stat: "PID (COMM) STATE …"; COMM may hold spaces and parentheses, so after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return /^[Tt]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '')
  } catch {
    return false
  }
}

/** A `payctl sandbox start` process of this user on this machine, as `sandbox status --all` lists it. */
export interface RunningSandbox {
  pid: number
  /** The config dir it was started with. */
  configDir: string
  /** Where it listens, as its config dir's state file says (absent: the file names another pid). */
  url?: string
}

/**
 * The sandboxes this user runs on this machine, each with the config dir it was started with
 * (Linux: from /proc; elsewhere none are found).
 */
export function runningSandboxes(): RunningSandbox[] {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
  const found: RunningSandbox[] = []
  for (const name of pids) {
    const pid = Number(name)
    if (pid === process.pid || !isSandboxProcess(pid)) continue
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
      const env = Object.fromEntries(
        environ.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      )
      // A relative PAYCTL_CONFIG_DIR is the process's own, from where it started.
      const dir = resolve(readlinkSync(`/proc/${pid}/cwd`), configDir(env))
      const state = readState(dir)
      found.push({pid, configDir: dir, ...(state?.pid === pid ? {url: state.url} : {})})
    } catch {
      // Another user's process, or gone meanwhile.
    }
  }
  return found
}

/**
 * The error of a `stop` that finds no sandbox of this config dir `dir` (none answers at `url`
 * either): as `kill` for no such process, and as `status`, exit 1. Those of other config dirs are
 * counted, not listed: they are other people's or other jobs', and `status --all` lists them.
 */
export function noSandboxHere(dir: string, url: string): PayctlError {
  const others = runningSandboxes().filter((s) => s.configDir !== resolve(dir)).length
  return new PayctlError({
    kind: 'api',
    code: 'SANDBOX_NOT_RUNNING',
    message: `no sandbox runs for this config dir (${dir}), and none answers at ${url}${
      others === 0 ? '' : `; ${others} ${others === 1 ? 'runs' : 'run'} under other config dirs`
    }`,
    suggestions: others === 0 ? [] : ['Try: payctl sandbox status --all'],
  })
}

/** Remove the state file if it still describes this process. */
export function clearState(dir: string, pid = process.pid): void {
  if (readState(dir)?.pid === pid) rmSync(statePath(dir), {force: true})
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** What `sandbox start --json` prints once the sandbox listens. */
export interface SandboxStarted {
  url: string
  /** The browser inspector's address; null under --no-ui. */
  inspector: string | null
  pid: number
  profile: string
  data: string
  credentials: {apiKey: string; apiSecret: string; partnerId: string; secretKey: string}
}

/** The error for a second sandbox in one config dir: what runs there, and the two ways on. */
export function sandboxRunning(state: SandboxState | undefined): PayctlError {
  return new PayctlError({
    kind: 'usage',
    code: 'SANDBOX_RUNNING',
    message: state
      ? `a sandbox started with this config dir is already running at ${state.url} (pid ${state.pid})`
      : 'another sandbox is starting with this config dir',
    suggestions: [
      'Try: payctl sandbox stop',
      'Or give each sandbox its own config dir (a CI job its own): PAYCTL_CONFIG_DIR="$(mktemp -d)" payctl sandbox start --port 0 --detach',
    ],
  })
}

/**
 * Hold the config dir for the sandbox of this process as long as it runs, so that a second start
 * for it, however close in time (two CI jobs), is refused rather than take over its profile,
 * state file and seed journal. A lock left by a sandbox killed outright is taken over once its
 * process is gone. Resolves with the release.
 */
export async function claimConfigDir(dir: string): Promise<() => Promise<void>> {
  const {default: lockfile} = await import('proper-lockfile')
  const lockDir = `${statePath(dir)}.lock`
  const options = {
    lockfilePath: lockDir,
    realpath: false,
    stale: 10_000,
    update: 2_000,
    // A lock that could not be refreshed (a machine waking from sleep) is no reason to stop serving.
    onCompromised: () => undefined,
  }
  try {
    return await lockfile.lock(statePath(dir), options)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err
    const state = readState(dir)
    if (state !== undefined && isAlive(state.pid)) throw sandboxRunning(state)
    if (state === undefined) throw sandboxRunning(undefined)
    // Left by a sandbox that is gone: take it over (another start doing the same loses the race).
    // Removed by hand: proper-lockfile unlocks only a lock its own process took.
    rmSync(lockDir, {recursive: true, force: true})
    return await lockfile.lock(statePath(dir), options).catch(() => {
      throw sandboxRunning(readState(dir))
    })
  }
}

/**
 * Run `payctl sandbox start ARGS --json` as a detached background process, its request log going
 * to sandbox.log, and resolve with what it prints once it listens. Secrets go in `env`, never ARGS.
 */
export async function startDetached(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<SandboxStarted> {
  closeInheritedDescriptors()
  const log = openPrivateAppend(logPath(dir)).fd
  const child = spawn(process.execPath, [process.argv[1] ?? '', 'sandbox', 'start', ...args, '--json'], {
    detached: true,
    stdio: ['ignore', 'pipe', log],
    env,
  })
  const notReady = (why: string) =>
    new PayctlError({kind: 'api', code: 'SANDBOX_START_FAILED', message: `the sandbox did not start: ${why}`})
  const started = await new Promise<SandboxStarted>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(notReady(`no answer within 15 s; see ${logPath(dir)}`)), 15_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      let parsed: SandboxStarted & {error?: ChildError}
      try {
        parsed = JSON.parse(out)
      } catch {
        return // not a whole JSON document yet
      }
      clearTimeout(timer)
      if (parsed.error) reject(fromChild(parsed.error))
      else resolve(parsed)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(notReady(`it exited with code ${code}; see ${logPath(dir)}`))
    })
  })
  child.stdout!.destroy()
  child.unref()
  closeSync(log)
  const state = readState(dir)
  if (state) writeState(dir, {...state, logFile: logPath(dir)})
  return started
}

interface ChildError {
  code: string
  message: string
  exitCode: number
  details?: Record<string, unknown>
  suggestions?: string[]
}

/** The background copy's own error (a busy port, a bad setting), with its code and exit code. */
function fromChild(e: ChildError): PayctlError {
  return new PayctlError({
    kind: e.exitCode === 2 ? 'usage' : e.exitCode === 4 ? 'auth' : 'api',
    code: e.code,
    message: e.message,
    details: e.details,
    suggestions: e.suggestions,
  })
}

/**
 * Close the descriptors this process inherited beyond stdin, stdout and stderr (those without
 * close-on-exec: Node opens none such), so that the background sandbox does not hold them open: a
 * caller waiting for the end of a pipe it handed down (`2> >(grep …)`) would wait for the sandbox
 * to stop. Linux only (it reads /proc); elsewhere nothing is closed.
 */
export function closeInheritedDescriptors(): void {
  if (process.platform !== 'linux') return
  let names: string[]
  try {
    names = readdirSync('/proc/self/fd')
  } catch {
    return
  }
  const ipc = Number(process.env.NODE_CHANNEL_FD ?? -1)
  for (const name of names) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd <= 2 || fd === ipc) continue
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1]
      if (flags !== undefined && (Number.parseInt(flags, 8) & 0o2000000) === 0) closeSync(fd)
    } catch {
      // gone already (the directory listing's own descriptor), or not ours to read
    }
  }
}

/**
 * The sandbox `status` and `stop` act on: the one this config dir started, if it still answers;
 * else whatever sandbox answers at the profile's URL (or the default one), which may have been
 * started with another config dir.
 */
export async function findSandbox(
  dir: string,
  store: ProfileStore,
  profile: string | undefined,
): Promise<{url: string; health: SandboxHealth | undefined; state: SandboxState | undefined}> {
  const state = readState(dir)
  let probed: string | undefined
  if (state && isAlive(state.pid)) {
    // A suspended process (Ctrl-Z, SIGSTOP) answers nothing: no need to wait for it to say so.
    const health = isSuspended(state.pid) ? undefined : await probeSandbox(state.url)
    if (health) return {url: state.url, health, state}
    probed = state.url
  }
  let stored: {baseUrl?: string} | undefined
  try {
    stored = storedProfile(store.read(), profile ?? 'local')
  } catch {
    stored = undefined
  }
  const url = stored?.baseUrl ?? DEFAULT_LOCAL_URL
  // The state's own URL did not answer a moment ago: no need to wait for it twice.
  return {url, health: url === probed ? undefined : await probeSandbox(url), state: undefined}
}
