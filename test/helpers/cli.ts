import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

export const ROOT = resolve(import.meta.dirname, '../..')
const BIN = join(ROOT, 'bin', 'run.js')

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
  /** stdout parsed as JSON (for --json runs). */
  json: <T = Record<string, unknown>>() => T
}

/** A throwaway config dir, so every test has its own profile file. */
export function tempConfigDir(): {dir: string; cleanup: () => void} {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-test-'))
  return {dir, cleanup: () => rmSync(dir, {recursive: true, force: true})}
}

/** Environment for a CLI run: no inherited PAYCTL_* or CI surprises, colour off, our config dir. */
export function cliEnv(configDir: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAYCTL_')) env[k] = v
  return {...env, PAYCTL_CONFIG_DIR: configDir, NO_COLOR: '1', ...extra}
}

/** Run the built CLI as a separate process, the way a user or script would. */
export function runCli(
  args: string[],
  opts: {configDir: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cliEnv(opts.configDir, opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`payctl ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, opts.timeoutMs ?? 20_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolvePromise({
        stdout,
        stderr,
        exitCode: code ?? -1,
        json: <T>() => {
          try {
            return JSON.parse(stdout) as T
          } catch {
            throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`)
          }
        },
      })
    })
    child.stdin.end(opts.input ?? '')
  })
}
