import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {configDir} from '../core/index.js'

/** What a running `payctl sandbox start` leaves in the config dir so `stop` and `status` can find it. */
export interface SandboxState {
  pid: number
  url: string
  host: string
  port: number
  data: string
  startedAt: string
  logFile?: string | undefined
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
