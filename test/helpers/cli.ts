import {spawn} from 'node:child_process'
import {Console} from 'node:console'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

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

export interface CliOptions {
  configDir: string
  env?: Record<string, string | undefined>
  input?: string
  timeoutMs?: number
}

function result(stdout: string, stderr: string, exitCode: number): CliResult {
  return {
    stdout,
    stderr,
    exitCode,
    json: <T>() => {
      try {
        return JSON.parse(stdout) as T
      } catch {
        throw new Error(`stdout is not JSON (exit ${exitCode}):\n${stdout}\nstderr:\n${stderr}`)
      }
    },
  }
}

type Bundle = {runCommand(args: string[]): Promise<number>}
let bundle: Promise<Bundle> | undefined
let running: Promise<unknown> = Promise.resolve()

/**
 * Run the built CLI (the same bundle `bin/run.js` loads) in this process: what a command prints, its
 * exit code and its files are those of a process of its own, with stdin, stdout and stderr not
 * terminals, and the environment `runCli` would give it. Runs one at a time (output is captured
 * from the process's streams), and a command that would exit the process fails the test. A run
 * given stdin (`input`) gets a process of its own: commands read it from descriptor 0. A command
 * that reads stdin unasked (a flag given `-`) would read the test runner's, so random flags, like
 * prompts, signals, detached processes and commands racing each other, need `runCli`.
 */
export function payctl(args: string[], opts: CliOptions): Promise<CliResult> {
  if (opts.input !== undefined) return runCli(args, opts)
  // The next run waits for this command to end, even when the test gave up on it (a timeout).
  let ended: Promise<unknown> = Promise.resolve()
  const run = running.then(() =>
    runInProcess(args, opts, (command) => {
      ended = command.catch(() => undefined)
    }),
  )
  running = run.then(
    () => ended,
    () => ended,
  )
  return run
}

async function runInProcess(
  args: string[],
  opts: CliOptions,
  started: (command: Promise<number>) => void,
): Promise<CliResult> {
  bundle ??= import(pathToFileURL(join(ROOT, 'dist', 'bundle', 'main.js')).href) as Promise<Bundle>
  const {runCommand} = await bundle
  let stdout = ''
  let stderr = ''
  const capture =
    (append: (text: string) => void) =>
    (chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString())
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') process.nextTick(done as () => void)
      return true
    }
  const saved = {
    console: globalThis.console,
    env: process.env,
    exit: process.exit,
    out: process.stdout.write,
    err: process.stderr.write,
  }
  const ttys = [process.stdin, process.stdout, process.stderr].map((stream) => ({
    stream,
    own: Object.getOwnPropertyDescriptor(stream, 'isTTY'),
  }))
  process.env = cliEnv(opts.configDir, opts.env)
  // oclif prints through console.log, which the test runner takes over: a console of the streams.
  globalThis.console = new Console(process.stdout, process.stderr)
  // A command that exits its process cannot be run here: the run fails, whatever it returned.
  let exited: number | undefined
  process.exit = ((code?: number) => {
    exited = code ?? 0
    throw new Error(`payctl ${args.join(' ')} called process.exit(${exited})`)
  }) as typeof process.exit
  process.stdout.write = capture((t) => {
    stdout += t
  }) as typeof process.stdout.write
  process.stderr.write = capture((t) => {
    stderr += t
  }) as typeof process.stderr.write
  for (const {stream} of ttys) Object.defineProperty(stream, 'isTTY', {value: false, configurable: true})
  let timer: NodeJS.Timeout | undefined
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`payctl ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`)),
        opts.timeoutMs ?? 20_000,
      )
    })
    const command = runCommand(args)
    started(command)
    const exitCode = await Promise.race([command, timeout])
    if (exited !== undefined) {
      throw new Error(`payctl ${args.join(' ')} called process.exit(${exited}): run it with runCli`)
    }
    return result(stdout, stderr, exitCode)
  } finally {
    clearTimeout(timer)
    globalThis.console = saved.console
    process.env = saved.env
    process.exit = saved.exit
    process.stdout.write = saved.out
    process.stderr.write = saved.err
    for (const {stream, own} of ttys) {
      if (own === undefined) delete (stream as {isTTY?: boolean}).isTTY
      else Object.defineProperty(stream, 'isTTY', own)
    }
  }
}

/** Run the built CLI as a separate process, the way a user or script would. */
export function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
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
      resolvePromise(result(stdout, stderr, code ?? -1))
    })
    child.stdin.end(opts.input ?? '')
  })
}
