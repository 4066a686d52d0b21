import {spawn} from 'node:child_process'
import {closeSync, openSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {configDir, PayctlError} from '../core/index.js'

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
 * to sandbox.log, and resolve with what it prints once it listens. Secrets go in `env`, never ARGS.
 */
export async function startDetached(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<SandboxStarted> {
  const log = openSync(logPath(), 'a', 0o600)
  const child = spawn(process.execPath, [process.argv[1] ?? '', 'sandbox', 'start', ...args, '--json'], {
    detached: true,
    stdio: ['ignore', 'pipe', log],
    env,
  })
  const notReady = (why: string) =>
    new PayctlError({kind: 'api', code: 'SANDBOX_START_FAILED', message: `the sandbox did not start: ${why}`})
  const started = await new Promise<SandboxStarted>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(notReady(`no answer within 15 s; see ${logPath()}`)), 15_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      let parsed: SandboxStarted & {error?: {message: string}}
      try {
        parsed = JSON.parse(out)
      } catch {
        return // not a whole JSON document yet
      }
      clearTimeout(timer)
      if (parsed.error) reject(notReady(parsed.error.message))
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
