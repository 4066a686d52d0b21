import {join} from 'node:path'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {
  commandAfterDashes,
  environmentFor,
  payctlCommand,
  privateConfigDir,
  type RunSandbox,
  snapshotFileFor,
  snapshotOwner,
  writeRunProfile,
} from '../../cli/local-sandbox/one-shot.js'
import {runToEnd} from '../../cli/local-sandbox/one-shot-command.js'
import {snapshotKey} from '../../cli/local-sandbox/sandbox-process.js'
import {snapshotStartFailure} from '../../cli/local-sandbox/snapshot-flags.js'
import {resolveProfile} from '../../core/index.js'

export default class SandboxRun extends BaseCommand<typeof SandboxRun> {
  static override summary = 'run a command against a one-shot sandbox: started, seeded, and stopped after it'
  static override handlesInterrupt = true
  static override strict = false
  static override description =
    `Starts a sandbox on a free port with private state (a data file and a config dir of its own, removed afterwards: two runs at once never meet), restores --from-snapshot, seeds it with --seed, then runs COMMAND with PAYCTL_CONFIG_DIR and PAYCTL_PROFILE pointing payctl at it, and PAYCTL_BASE_URL, PAYCTL_API_URL, PAYCTL_API_KEY, PAYCTL_API_SECRET and PAYCTL_PARTNER_ID for the command's own code.
The sandbox stops whatever the command does (exits, is killed, crashes); payctl exits with the command's code (128 + N for signal N). The command's output is passed on byte for byte, and the command never outlives payctl: when payctl's output is no longer read (| head), payctl ends the command and all it started and exits 141; when payctl is killed, the command is ended with it.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --from-snapshot ./seeded.snapshot -- ./checks.sh',
    '<%= config.bin %> <%= command.id %> --seed examples/fixtures/shop.yaml -- npm test',
  ]
  static override flags = {
    'from-snapshot': Flags.string({
      summary: 'start from this snapshot: a file, or a name among the profile’s partner’s snapshots',
      helpValue: 'NAME|PATH',
    }),
    seed: Flags.string({
      summary: 'seed from this fixture file (repeatable)',
      multiple: true,
      helpValue: 'FILE',
    }),
  }

  async run(): Promise<void> {
    const command = commandAfterDashes(this.argv)
    const from = this.flags['from-snapshot']
    // A name is the caller's own: the partner of the profile payctl acts for.
    const owner = () =>
      snapshotOwner(resolveProfile(this.store.read(), {profile: this.flags.profile}, this.env))
    const path = from === undefined ? undefined : snapshotFileFor(from, this.runtime.configDir, owner)
    const own = privateConfigDir()
    const {startSandbox} = await import('../../sandbox/index.js')
    try {
      const sandbox = await startSandbox({
        port: 0,
        data: join(own.dir, 'sandbox.db'),
        rateLimit: 'off',
        snapshotDir: join(own.dir, 'snapshots'),
        // The caller's: a snapshot its own sandboxes saved starts this one as it is, not rebuilt.
        snapshotKey: snapshotKey(this.runtime.configDir),
        ...(path === undefined ? {} : {fromSnapshot: {path}}),
      }).catch((err: unknown) => {
        const code = (err as {code?: unknown}).code
        throw from !== undefined && typeof code === 'string' && code.startsWith('SNAPSHOT_')
          ? snapshotStartFailure(err as Error & {code: string}, from)
          : err
      })
      try {
        // A write past `ulimit -f` fails alone (EFBIG) rather than ending the sandbox with the run.
        const ignore = this.runtime.onSignal('SIGXFSZ', () => undefined)
        const {apiKey, apiSecret, partnerId} = sandbox.credentials
        const run: RunSandbox = {
          url: sandbox.url,
          configDir: own.dir,
          credentials: {apiKey, apiSecret, partnerId},
        }
        await writeRunProfile(run)
        const env = environmentFor(this.env, run)
        for (const file of this.flags.seed ?? []) {
          const seeded = await runToEnd(payctlCommand(['seed', file]), env, this.io, this.runtime)
          if (seeded !== 0) {
            this.runtime.exitCode = seeded
            return
          }
        }
        this.runtime.exitCode = await runToEnd(command, env, this.io, this.runtime)
        ignore()
      } finally {
        await sandbox.close()
      }
    } finally {
      own.remove()
    }
  }
}
