import {existsSync, lstatSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {SnapshotName} from '../../contract/index.js'
import {
  PayctlError,
  ProfileStore,
  type ResolvedProfile,
  saveLocalProfile,
  usageError,
} from '../../core/index.js'
import {isAlive} from './sandbox-process.js'

/**
 * The parts of `sandbox run` that are not the sandbox: where its private state goes, which
 * snapshot it starts from, and the environment the command gets; the command itself is run by
 * one-shot-command.ts (docs/sandbox.md#one-shot-sandboxes).
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

/** The partner whose snapshots a name is looked up among: that of the profile payctl acts for. */
export interface SnapshotOwner {
  profile: string
  /** Undefined where the profile is no local sandbox's partner (or there is no profile yet). */
  partnerId: string | undefined
}

// A partner id as the sandbox makes them, which is also one plain folder name.
const PARTNER_FOLDER = /^[A-Za-z0-9_-]{1,64}$/

/** The partner a profile names, where it is a local sandbox's: whose snapshots are this machine's. */
export function snapshotOwner(profile: ResolvedProfile): SnapshotOwner {
  const partnerId = profile.kind === 'local' ? profile.auth?.partnerId : undefined
  return {
    profile: profile.name,
    partnerId: partnerId && PARTNER_FOLDER.test(partnerId) ? partnerId : undefined,
  }
}

/**
 * The snapshot file `--from-snapshot` names: a path, or a name among the owner's snapshots that the
 * sandbox of `configDir` keeps (beside its default data file, or in the config dir for :memory:).
 * Another partner's are never looked at: they hold its rows and its credentials, which the run
 * would hand to its command.
 */
export function snapshotFileFor(value: string, configDir: string, owner: () => SnapshotOwner): string {
  if (existsSync(value)) return resolve(value)
  const who = SnapshotName.safeParse(value).success ? owner() : undefined
  const partner = who?.partnerId
  const found =
    partner === undefined
      ? []
      : ['snapshots', 'sandbox.db.snapshots']
          .map((folder) => join(configDir, folder, partner, `${value}.snapshot`))
          .filter((file) => existsSync(file))
  if (found.length === 1) return found[0]!
  if (found.length > 1) {
    throw usageError(
      `--from-snapshot ${value}: several snapshots have that name (${found.join(', ')}); give the file's path`,
      'SNAPSHOT_AMBIGUOUS',
      {flag: '--from-snapshot', value},
    )
  }
  const why =
    who === undefined
      ? `no such snapshot file, and not a snapshot name`
      : who.partnerId === undefined
        ? `no such snapshot file; a name is one of the snapshots of the partner payctl acts for, and there is no profile of a local sandbox's partner (profile ${who.profile})`
        : `no such snapshot file, nor a snapshot of that name of partner ${who.partnerId} (profile ${who.profile}) in ${configDir}`
  throw new PayctlError({
    kind: 'usage',
    code: 'SNAPSHOT_NOT_FOUND',
    message: `--from-snapshot ${value}: ${why}`,
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

/** A private dir of a run, named after the pid of the payctl that made it: `payctl-run-PID-XXXXXX`. */
const RUN_DIR = /^payctl-run-([1-9]\d*)-/

/**
 * A private config dir for one run: its profile, state and snapshots, removed afterwards. The dirs
 * of earlier runs whose payctl was killed outright, and could not remove its own, go first.
 */
export function privateConfigDir(): {dir: string; remove: () => void} {
  removeAbandonedRuns()
  const dir = mkdtempSync(join(tmpdir(), `payctl-run-${process.pid}-`))
  return {dir, remove: () => rmSync(dir, {recursive: true, force: true})}
}

/**
 * Remove the private dirs of runs whose payctl is gone: a dir of this user's, named after a pid no
 * process has. A live run's dir is never one (its pid is alive); a pid taken since by another
 * process keeps its dir until that one ends too. Links and other users' dirs are left alone.
 */
function removeAbandonedRuns(): void {
  const tmp = tmpdir()
  let names: string[]
  try {
    names = readdirSync(tmp)
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(RUN_DIR.exec(name)?.[1])
    if (!Number.isSafeInteger(pid) || isAlive(pid)) continue
    const path = join(tmp, name)
    const stat = lstatSync(path, {throwIfNoEntry: false})
    const mine = process.getuid === undefined || stat?.uid === process.getuid()
    if (!stat?.isDirectory() || !mine) continue
    rmSync(path, {recursive: true, force: true})
  }
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
