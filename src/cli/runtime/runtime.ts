import {AsyncLocalStorage} from 'node:async_hooks'
import {configDir} from '../../core/config-dir.js'
import type {PriorAnswer} from '../../core/transport.js'
import {type Env, type IOStreams, systemIO} from './io.js'
import {type Prompter, terminalPrompter} from './prompter.js'

export interface Clock {
  now(): number
  /** Wait `ms` (a retry's delay): a timer, or at once where a test runs a retry schedule. */
  wait(ms: number): Promise<void>
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export type Signal = 'SIGINT' | 'SIGTERM' | 'SIGXFSZ'

/**
 * Everything a command takes from the world it runs in, as gh's factory hands it over: its streams,
 * the prompter, the environment, the config dir, the clock, the exit code and the signals. A
 * process has one (processRuntime); each in-process run of the test suite has its own
 * (isolatedRuntime), so runs can overlap without any of them touching process.env, the process's
 * streams or its exit code.
 */
export interface Runtime {
  readonly io: IOStreams
  readonly prompter: Prompter
  readonly env: Env
  /** Where the profile file, the audit log and the sandbox's state live. */
  readonly configDir: string
  readonly clock: Clock
  /** The exit code of a command that ends without an error yet not well (a failed doctor check). */
  exitCode: number | undefined
  /** Call `handler` on every `signal` until the returned removal is called. */
  onSignal(signal: Signal, handler: () => void): () => void
  /** End at once, with `code`, whatever is in flight (a second Ctrl-C). */
  exit(code: number): never
  /**
   * The answer bin/run.js's fast path got before handing the run over (a process's runtime only):
   * the command's first request takes it instead of sending the same request again.
   */
  prior?: PriorAnswer | undefined
}

const RUNS = Symbol.for('payctl.runs')

let ownProcess: Runtime | undefined

/** The runtime of this process: its streams, its environment and its exit code. */
export function processRuntime(): Runtime {
  if (ownProcess !== undefined) return ownProcess
  const io = systemIO(process.env)
  ownProcess = {
    io,
    prompter: terminalPrompter(io),
    env: process.env,
    configDir: configDir(process.env),
    clock: {now: () => Date.now(), wait: timer},
    get exitCode() {
      return process.exitCode === undefined ? undefined : Number(process.exitCode)
    },
    set exitCode(code) {
      process.exitCode = code
    },
    onSignal(signal, handler) {
      process.on(signal, handler)
      return () => process.off(signal, handler)
    },
    exit: (code) => process.exit(code),
  }
  return ownProcess
}

export interface RuntimeOptions {
  io: IOStreams
  env: Env
  prompter?: Prompter | undefined
  now?: (() => number) | undefined
  wait?: ((ms: number) => Promise<void>) | undefined
}

/**
 * A runtime of its own for a run inside another program (the test suite): given streams and
 * environment, an exit code of its own, no signals (the process's belong to its owner), and an
 * exit that fails the run rather than end the process.
 */
export function isolatedRuntime(opts: RuntimeOptions): Runtime {
  return {
    io: opts.io,
    prompter: opts.prompter ?? terminalPrompter(opts.io),
    env: opts.env,
    configDir: configDir(opts.env),
    clock: {now: opts.now ?? (() => Date.now()), wait: opts.wait ?? timer},
    exitCode: undefined,
    onSignal: () => () => undefined,
    exit(code) {
      throw new Error(`the command ended its process (exit ${code}): run it in a process of its own`)
    },
  }
}

/**
 * The runtime of each run in progress. One for the whole process, whichever copy of this module
 * asks: oclif loads the not-found hook from the tsc build, beside the bundle's own copy.
 */
const shared = globalThis as {[RUNS]?: AsyncLocalStorage<Runtime>}
/** Made by the first run: a process that runs none (bin/run.js's fast path) needs none. */
const runs = () => (shared[RUNS] ??= new AsyncLocalStorage<Runtime>())

/** The runtime of the run in progress: an in-process run's own, else this process's. */
export function currentRuntime(): Runtime {
  return shared[RUNS]?.getStore() ?? processRuntime()
}

/** Run `work` (an oclif run, with every command it starts) in `runtime`. */
export function runIn<T>(runtime: Runtime, work: () => Promise<T>): Promise<T> {
  routeConsole()
  return runs().run(runtime, work)
}

type Console = globalThis.Console
let routing: Console | undefined

/**
 * oclif prints its own output (help, its warnings) through the global console. Within a run of
 * runIn, that console writes to the run's streams; elsewhere it is the console that was there.
 * Installed the first time a run starts in this process, and again should the program put another
 * console in its place (a test runner may, between files); a process of payctl's own never
 * installs it, its console writing to its own streams already.
 */
function routeConsole(): void {
  if (routing !== undefined && globalThis.console === routing) return
  const outside = globalThis.console
  const consoles = new WeakMap<Runtime, Console>()
  const target = (): Console => {
    const runtime = runs().getStore()
    if (runtime === undefined) return outside
    let own = consoles.get(runtime)
    if (own === undefined) {
      own = new (process.getBuiltinModule('node:console').Console)(
        runtime.io.out.stream,
        runtime.io.err.stream,
      )
      consoles.set(runtime, own)
    }
    return own
  }
  routing = new Proxy(outside, {
    get(_, name) {
      const console = target()
      const value = Reflect.get(console, name) as unknown
      return typeof value === 'function' ? value.bind(console) : value
    },
  })
  globalThis.console = routing
}
