import {randomBytes} from 'node:crypto'
import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {yesFlag} from '../../../cli/flags.js'
import {operatorProfile} from '../../../cli/local-sandbox/sandbox-process.js'
import {
  operatorOnlySnapshot,
  snapshotFileFlag,
  snapshotName,
} from '../../../cli/local-sandbox/snapshot-flags.js'
import {PayctlError, uploadSnapshot, usageError} from '../../../core/index.js'

export default class SandboxSnapshotRestore extends BaseCommand<typeof SandboxSnapshotRestore> {
  static override summary = "put the profile's partner (or the whole sandbox) back as a snapshot holds it"
  static override description =
    "One transaction: every request runs wholly before or after it, and no other partner is touched (but by a snapshot of the whole sandbox). Credentials, tokens, listen sessions and rate-limit budgets stay; records, the clock, idempotency keys and pending webhook retries are the snapshot's; faults on demand are cleared. With --file, the file is sent to the sandbox first (kept there as NAME if one is given)."
  static override examples = [
    '<%= config.bin %> <%= command.id %> seeded',
    '<%= config.bin %> <%= command.id %> --file ./seeded.snapshot',
    '<%= config.bin %> <%= command.id %> seeded --file ./seeded.snapshot --yes',
  ]
  static override args = {
    name: Args.string({description: 'the snapshot’s name (with --file: the name to keep it under)'}),
  }
  static override flags = {file: snapshotFileFlag, yes: yesFlag}

  async run(): Promise<{name: string; scope: 'partner' | 'all'; records: number; restored: true}> {
    const {file} = this.flags
    if (this.args.name === undefined && file === undefined)
      throw usageError('give the snapshot to restore: NAME, or --file PATH', 'MISSING_ARGUMENT', {
        argument: 'NAME',
      })
    const given = this.args.name === undefined ? undefined : snapshotName(this.args.name)
    this.requireLocal('sandbox snapshot')
    const name = given ?? `import-${randomBytes(4).toString('hex')}`
    if (!this.flags.yes && this.interactive)
      await this.questions.confirm(
        `Replace the state at ${this.profile.baseUrl} with snapshot ${given ?? file}?`,
      )
    if (file !== undefined) {
      await this.out
        .spin(`Sending ${file}`, () => uploadSnapshot(this.api, name, file))
        .catch((err: unknown) => namingFile(err, file))
    }
    try {
      const restored = await this.out
        .spin(`Restoring snapshot ${given ?? file}`, () => this.api.call('restoreSnapshot', {params: {name}}))
        .catch((err: unknown) => operatorOnlySnapshot(err, operatorProfile(this.runtime.configDir)))
      this.out.done(`Restored ${restored.records} rows from snapshot`, given ?? file)
      return given === undefined ? {...restored, name: file ?? name} : restored
    } finally {
      // A file sent for this restore alone is not kept.
      if (given === undefined) await this.api.call('deleteSnapshot', {params: {name}}).catch(() => undefined)
    }
  }
}

/** A file the sandbox refused, named as the user gave it rather than as it was sent. */
function namingFile(err: unknown, file: string): never {
  if (
    err instanceof PayctlError &&
    err.code === 'SNAPSHOT_INVALID' &&
    typeof err.details?.reason === 'string'
  ) {
    throw new PayctlError({
      kind: err.kind,
      code: err.code,
      message: `${file} is not a snapshot this payctl can restore: ${err.details.reason}`,
      details: {file, reason: err.details.reason},
      requestId: err.requestId,
      suggestions: ['Nothing was restored, and the sandbox is as it was'],
    })
  }
  throw err
}
