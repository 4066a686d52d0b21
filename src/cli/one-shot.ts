import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {constants, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {SnapshotName} from '../contract/index.js'
import {PayctlError, ProfileStore, saveLocalProfile, usageError} from '../core/index.js'
import type {IOStreams} from './io.js'
import type {Runtime} from './runtime.js'

/**
 * The parts of `sandbox run` that are not the sandbox: where its private state goes, which
 * snapshot it starts from, the environment the command gets, and the command itself
 * (docs/sandbox.md#one-shot-sandboxes).
 */

/** The command after `--`, refused when there is none. */
export function commandAfterDashes(argv: readonly string[]): string[] {
  const at = argv.indexOf('--')
  const command = at < 0 ? [] : argv.slice(at + 1)
  if (command.length === 0 || command[0] === '') {
    throw new PayctlError({
      kind: 'usage',
      code: 'MISSING_COMMAND',
      message: 'give the command to run against the sandbox after --',
      details: {argument: 'COMMAND'},
      suggestions: ['Try: payctl sandbox run --from-snapshot seeded -- ./checks.sh'],
    })
  }
  return command
}

/**
 * The snapshot file `--from-snapshot` names: a path, or a name among the snapshots the sandbox of
 * `configDir` keeps (beside its default data file, or in the config dir for :memory:).
 */
export function snapshotFileFor(value: string, configDir: string): string {
  if (existsSync(value)) return resolve(value)
  const folders = [join(configDir, 'snapshots'), join(configDir, 'sandbox.db.snapshots')]
  const found = SnapshotName.safeParse(value).success
    ? folders.flatMap((folder) => {
        const partners = existsSync(folder) ? readdirSync(folder) : []
        return partners.map((p) => join(folder, p, `${value}.snapshot`)).filter((f) => existsSync(f))
      })
    : []
  if (found.length === 1) return found[0]!
  if (found.length > 1) {
    throw usageError(
      `--from-snapshot ${value}: several snapshots have that name (${found.join(', ')}); give the file's path`,
      'SNAPSHOT_AMBIGUOUS',
      {flag: '--from-snapshot', value},
    )
  }
  throw new PayctlError({
    kind: 'usage',
    code: 'SNAPSHOT_NOT_FOUND',
    message: `--from-snapshot ${value}: no such snapshot file, nor a snapshot of that name in ${configDir}`,
    details: {flag: '--from-snapshot', value},
    suggestions: [
      'List the snapshots: payctl sandbox snapshot list',
      'Or save one as a file: payctl sandbox snapshot save NAME --file ./NAME.snapshot',
    ],
  })
}

/** This payctl, running `args`: how a run seeds its sandbox. */
export function payctlCommand(args: readonly string[]): string[] {
  return [process.execPath, process.argv[1] ?? '', ...args]
}

/** A private config dir for one run: its profile, state and snapshots, removed afterwards. */
export function privateConfigDir(): {dir: string; remove: () => void} {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-run-'))
  return {dir, remove: () => rmSync(dir, {recursive: true, force: true})}
}

/** What the sandbox of a run is, as its command's environment tells it. */
export interface RunSandbox {
  url: string
  configDir: string
  credentials: {apiKey: string; apiSecret: string; partnerId: string}
}

/**
 * The environment of the command: payctl's (its config dir and profile, so `payctl …` inside acts on
 * this sandbox) and the same as PAYCTL_* variables for the command's own code.
 */
export function environmentFor(
  env: Record<string, string | undefined>,
  sandbox: RunSandbox,
): NodeJS.ProcessEnv {
  const own: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('PAYCTL_')) own[k] = v
  return {
    ...own,
    PAYCTL_CONFIG_DIR: sandbox.configDir,
    PAYCTL_PROFILE: 'local',
    PAYCTL_BASE_URL: sandbox.url,
    PAYCTL_API_URL: `${sandbox.url}/v1`,
    PAYCTL_API_KEY: sandbox.credentials.apiKey,
    PAYCTL_API_SECRET: sandbox.credentials.apiSecret,
    PAYCTL_PARTNER_ID: sandbox.credentials.partnerId,
  }
}

/** Write the `local` profile of the run's sandbox into its private config dir. */
export async function writeRunProfile(sandbox: RunSandbox): Promise<void> {
  await saveLocalProfile(new ProfileStore(sandbox.configDir), 'local', sandbox.url, {
    variant: 'A',
    ...sandbox.credentials,
  })
}

/**
 * Run `command` to its end, its output passed on; Ctrl-C and SIGTERM are passed to it. Resolves
 * with its exit code: 128 + the signal's number when a signal ended it, 127 when it could not start.
 */
export function runToEnd(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  io: IOStreams,
  runtime: Pick<Runtime, 'onSignal'>,
): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command[0]!, command.slice(1), {env, stdio: ['inherit', 'pipe', 'pipe']})
    child.stdout.on('data', (chunk: Buffer) => io.out.write(chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => io.err.write(chunk.toString()))
    const removals = (['SIGINT', 'SIGTERM'] as const).map((signal) =>
      runtime.onSignal(signal, () => child.kill(signal)),
    )
    const finish = (code: number) => {
      for (const remove of removals) remove()
      done(code)
    }
    child.once('error', (err) => {
      io.err.write(`payctl: ${command[0]}: ${err.message}\n`)
      finish(127)
    })
    child.once('close', (code, signal) => {
      if (signal !== null) finish(128 + (constants.signals[signal] ?? 0))
      else finish(code ?? 1)
    })
  })
}
