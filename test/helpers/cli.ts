/// <reference types="vite/client" />
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {type Command, Config, Plugin} from '@oclif/core'
import {bundledPluginCommands} from '../../scripts/bundled-plugins.ts'

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

/** A run never falls back to the user's own config dir: a test that gives none is refused. */
function checkedConfigDir(configDir: unknown): string {
  if (typeof configDir !== 'string' || configDir === '')
    throw new TypeError(`a test's payctl needs a config dir of its own, not ${JSON.stringify(configDir)}`)
  return configDir
}

/**
 * Environment for a CLI run: no inherited PAYCTL_* or CI surprises, colour off, our config dir; but
 * the run's PAYCTL_EXIT_WITH_PID, so that no payctl a test starts outlives the run (run-setup.ts).
 */
export function cliEnv(configDir: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  checkedConfigDir(configDir)
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('PAYCTL_') || k === 'PAYCTL_EXIT_WITH_PID') env[k] = v
  return {...env, PAYCTL_CONFIG_DIR: configDir, NO_COLOR: '1', ...extra}
}

export interface CliOptions {
  configDir: string
  env?: Record<string, string | undefined>
  input?: string
  timeoutMs?: number
  /**
   * How a retry waits out its delay, for a run in this process: `() => Promise.resolve()` runs a
   * retry schedule without waiting for it (the delays are still printed). Default: a timer.
   */
  wait?: (ms: number) => Promise<void>
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

/** Every command of src/commands, by oclif's id (`wallets/get.ts` → `wallets:get`), as the build lists them. */
const COMMANDS = Object.fromEntries(
  Object.entries(import.meta.glob<{default: Command.Class}>('../../src/commands/**/*.ts', {eager: true})).map(
    ([path, module]) => [commandId(path.replace(/^.*\/src\/commands\//, '')), module.default],
  ),
)

function commandId(file: string): string {
  const parts = file.replace(/\.ts$/, '').split('/')
  if (parts.length > 1 && parts.at(-1) === 'index') parts.pop()
  return parts.join(':')
}

/** The commands of oclif's help and autocomplete plugins, which the build bundles as payctl's own. */
const PLUGIN_COMMANDS = Object.fromEntries(
  await Promise.all(
    bundledPluginCommands(ROOT).map(
      async (c) => [c.id, (await import(pathToFileURL(c.file).href)).default as Command.Class] as const,
    ),
  ),
)

/**
 * oclif's configuration of payctl with its commands as they are in src/ (loaded by the test's own
 * module loader, so a change is seen at once, with no build), and those of oclif's help and
 * autocomplete plugins, as the build has them. Made anew for each run, as a process makes it.
 */
async function configFromSource(): Promise<Config> {
  const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  pjson.oclif.hooks = {command_not_found: './test/helpers/not-found-hook.js'}
  const root = new Plugin({root: ROOT, pjson, isRoot: true, ignoreManifest: true})
  // Its commands given rather than imported from the build (oclif reads them from this cache first).
  ;(root as unknown as {commandCache: unknown}).commandCache = {...COMMANDS, ...PLUGIN_COMMANDS}
  await root.load()
  return Config.load({root: ROOT, pjson, plugins: new Map([[root.name, root]])})
}

/**
 * payctl's commands as oclif reads them from src/, what the build's manifest lists: each with its
 * flags (its own and the base command's), hidden or not.
 */
export async function commandsFromSource(): Promise<Command.Loadable[]> {
  return (await configFromSource()).commands
}

let source: Promise<typeof import('../../src/cli/main.js')> | undefined

/** What runs a command from src/: its entry point, with the hook the CLI's unknown commands go to. */
function fromSource() {
  source ??= import('../../src/cli/not-found.js').then((notFound) => {
    ;(globalThis as Record<symbol, unknown>)[Symbol.for('payctl.test.notFound')] = notFound.default
    return import('../../src/cli/main.js')
  })
  return source
}

/**
 * Run a payctl command from src/ in this process: what a command prints, its exit code and its files
 * are those of a process of its own, with stdin, stdout and stderr not terminals, and the environment
 * `runCli` would give it. Each run has a runtime of its own (its streams, environment, config dir and
 * exit code: src/cli/runtime/runtime.ts) and changes nothing of this process, so runs may overlap; a command
 * that would end its process fails the run. A run given stdin (`input`) gets a process of its own:
 * oclif's parser reads stdin itself, from the process. Prompts, signals, detached processes,
 * commands racing each other and the build itself (its bundle and fast path) need `runCli`.
 */
export async function payctl(args: string[], opts: CliOptions): Promise<CliResult> {
  if (opts.input !== undefined) return runCli(args, opts)
  const {runCommand, testIO} = await fromSource()
  const streams = testIO({})
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `payctl ${args.join(' ')} timed out\nstdout: ${streams.stdout()}\nstderr: ${streams.stderr()}`,
          ),
        ),
      opts.timeoutMs ?? 60_000,
    )
  })
  try {
    const run = runCommand(
      args,
      {io: streams.io, env: cliEnv(opts.configDir, opts.env), wait: opts.wait},
      configFromSource,
    )
    const exitCode = await Promise.race([run, timeout])
    return result(streams.stdout(), streams.stderr(), exitCode)
  } finally {
    clearTimeout(timer)
  }
}

type Runtime = {io: unknown; env: NodeJS.ProcessEnv}
type Bundle = {
  runCommand(args: string[], runtime: Runtime & {handover?: unknown}): Promise<number>
  inRuntime<T>(runtime: Runtime, work: () => Promise<T>): Promise<{value: T; exitCode: number}>
  testIO(opts: object): {io: unknown; stdout(): string; stderr(): string}
}
type FastBundle = {fast(argv: string[]): Promise<unknown>}
let bundle: Promise<Bundle> | undefined
let fastBundle: Promise<FastBundle> | undefined
const built = <T>(file: string) =>
  import(pathToFileURL(join(ROOT, 'dist', 'bundle', file)).href) as Promise<T>

/**
 * Run a payctl command in this process as the build bundles it (dist/bundle/main.js, what bin/run.js
 * loads past its fast path): what the fast path's tests compare it with. `npm run build` first.
 */
export async function payctlBuilt(args: string[], opts: CliOptions): Promise<CliResult> {
  bundle ??= built('main.js')
  const {runCommand, testIO} = await bundle
  const streams = testIO({})
  const exitCode = await runCommand(args, {io: streams.io, env: cliEnv(opts.configDir, opts.env)})
  return result(streams.stdout(), streams.stderr(), exitCode)
}

/**
 * Run a payctl command in this process as bin/run.js runs it, from the build: its fast path
 * (dist/bundle/fast.js), then, if that hands the run over, the full CLI with what it handed over,
 * on the same streams. `handedOver` says whether the full CLI ran. `npm run build` first.
 */
export async function payctlBuiltFast(
  args: string[],
  opts: CliOptions,
): Promise<CliResult & {handedOver: boolean}> {
  bundle ??= built('main.js')
  fastBundle ??= built('fast.js')
  const [{runCommand, inRuntime, testIO}, {fast}] = await Promise.all([bundle, fastBundle])
  const streams = testIO({})
  const runtime = {io: streams.io, env: cliEnv(opts.configDir, opts.env)}
  const {value: handover, exitCode} = await inRuntime(runtime, () => fast(args))
  const code = handover === undefined ? exitCode : await runCommand(args, {...runtime, handover})
  return {...result(streams.stdout(), streams.stderr(), code), handedOver: handover !== undefined}
}

/** Commands bound to a config dir (and options): `cli('users', 'list', '--json')`. */
export type Cli = (...args: string[]) => Promise<CliResult>

/**
 * The commands of one config dir (a sandbox's, or a temporary one), run in this process from src/
 * (`payctl`), or with `{process: true}` each as a process of its own (`runCli`).
 */
export function cliFor(
  target: string | {configDir: string},
  options: Omit<CliOptions, 'configDir'> & {process?: boolean} = {},
): Cli {
  const configDir = typeof target === 'string' ? target : target.configDir
  const {process: asProcess, ...rest} = options
  return (...args) => (asProcess === true ? runCli : payctl)(args, {...rest, configDir})
}

/**
 * The arguments of `payctl auth login` for a partner of a local sandbox (Variant A: its API key,
 * partner id and API secret), with `more` after them (`--debug`, `--profile NAME`).
 */
export function loginArgs(
  sandbox: {url: string; credentials: {apiKey: string; apiSecret: string; partnerId: string}},
  ...more: string[]
): string[] {
  const c = sandbox.credentials
  return [
    'auth',
    'login',
    '--env',
    'local',
    '--base-url',
    sandbox.url,
    '--api-key',
    c.apiKey,
    '--partner-id',
    c.partnerId,
    '--api-secret',
    c.apiSecret,
    ...more,
  ]
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
    }, opts.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolvePromise(result(stdout, stderr, code ?? -1))
    })
    child.stdin.end(opts.input ?? '')
  })
}

/** The profile file of config dir `dir`, as payctl wrote it. */
// biome-ignore lint/suspicious/noExplicitAny: a test reads whatever shape the file has
export function readProfileFile(dir: string): any {
  return JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'))
}

/** A fresh config dir logged in to `sandbox` with its partner credentials (Variant A), in this process. */
export async function loggedInConfigDir(
  sandbox: Parameters<typeof loginArgs>[0],
): Promise<ReturnType<typeof tempConfigDir>> {
  const temp = tempConfigDir()
  const r = await payctl(loginArgs(sandbox), {configDir: temp.dir})
  if (r.exitCode !== 0) {
    temp.cleanup()
    throw new Error(`auth login failed (exit ${r.exitCode}):\n${r.stderr}`)
  }
  return temp
}

/** The request id an error printed (`request id: req_…`). */
export function requestIdIn(stderr: string): string {
  const id = /request id: (req_[0-9a-f]+)/.exec(stderr)?.[1]
  if (id === undefined) throw new Error(`no request id in:\n${stderr}`)
  return id
}

/** How many `what` the service lists in all, read with `list --all --json` through `cli`. */
export async function listedCount(cli: Cli, what: 'wallets' | 'transactions'): Promise<number> {
  const r = await cli(what, 'list', '--all', '--json')
  if (r.exitCode !== 0) throw new Error(`${what} list failed (exit ${r.exitCode}):\n${r.stderr}`)
  return r.json<Record<string, unknown[]>>()[what]!.length
}
