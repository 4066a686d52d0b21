import {spawn} from 'node:child_process'
import {closeSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {SandboxHealth} from '../contract/index.js'
import {configDir, DEFAULT_LOCAL_URL, PayctlError, type ProfileStore, probeSandbox} from '../core/index.js'

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
}

export const statePath = () => join(configDir(), 'sandbox.json')
export const defaultDataPath = () => join(configDir(), 'sandbox.db')
export const logPath = () => join(configDir(), 'sandbox.log')

export function readState(): SandboxState | undefined {
  try {
    return JSON.parse(readFileSync(statePath(), 'utf8')) as SandboxState
  } catch {
    return undefined
  }
}

export function writeState(state: SandboxState): void {
  writeFileSync(statePath(), `${JSON.stringify(state, null, 2)}\n`, {mode: 0o600})
}

/** Remove the state file if it still describes this process. */
export function clearState(pid = process.pid): void {
  if (readState()?.pid === pid) rmSync(statePath(), {force: true})
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
  pid: number
  profile: string
  data: string
  credentials: {apiKey: string; apiSecret: string; partnerId: string; secretKey: string}
}

/**
 * Run `payctl sandbox start ARGS --json` as a detached background process, its request log going
 * to sandbox.log, and resolve with what it prints once it listens.
 */
export async function startDetached(args: string[]): Promise<SandboxStarted> {
  closeInheritedDescriptors()
  const log = openSync(logPath(), 'a', 0o600)
  const child = spawn(process.execPath, [process.argv[1] ?? '', 'sandbox', 'start', ...args, '--json'], {
    detached: true,
    stdio: ['ignore', 'pipe', log],
    env: process.env,
  })
  const notReady = (why: string) =>
    new PayctlError({kind: 'api', code: 'SANDBOX_START_FAILED', message: `the sandbox did not start: ${why}`})
  const started = await new Promise<SandboxStarted>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(notReady(`no answer within 15 s; see ${logPath()}`)), 15_000)
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
      reject(notReady(`it exited with code ${code}; see ${logPath()}`))
    })
  })
  child.stdout!.destroy()
  child.unref()
  closeSync(log)
  const state = readState()
  if (state) writeState({...state, logFile: logPath()})
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
  store: ProfileStore,
  profile: string | undefined,
): Promise<{url: string; health: SandboxHealth | undefined; state: SandboxState | undefined}> {
  const state = readState()
  if (state && isAlive(state.pid)) {
    const health = await probeSandbox(state.url)
    if (health) return {url: state.url, health, state}
  }
  let stored: {baseUrl?: string} | undefined
  try {
    stored = store.read().profiles[profile ?? 'local']
  } catch {
    stored = undefined
  }
  const url = stored?.baseUrl ?? DEFAULT_LOCAL_URL
  return {url, health: await probeSandbox(url), state: undefined}
}
