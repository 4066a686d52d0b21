import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {operatorProfile} from '../../../cli/local-sandbox/sandbox-process.js'
import {
  allFlag,
  formatBytes,
  operatorOnlySnapshot,
  snapshotFileFlag,
  snapshotName,
} from '../../../cli/local-sandbox/snapshot-flags.js'
import type {Snapshot} from '../../../contract/index.js'
import {downloadSnapshot} from '../../../core/index.js'

export default class SandboxSnapshotSave extends BaseCommand<typeof SandboxSnapshotSave> {
  static override summary =
    "save the profile's partner (or, with --all, the whole sandbox) as a named snapshot"
  static override description =
    'The sandbox keeps it beside its data file, replacing an earlier snapshot of that name. With --file, a copy is written on this machine too, to cache in CI or restore on another machine with the same or a newer payctl.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> seeded',
    '<%= config.bin %> <%= command.id %> seeded --file ./seeded.snapshot',
    '<%= config.bin %> <%= command.id %> whole-team --all',
  ]
  static override args = {name: Args.string({description: 'the snapshot’s name', required: true})}
  static override flags = {all: allFlag, file: snapshotFileFlag}

  async run(): Promise<Snapshot & {file?: string}> {
    const name = snapshotName(this.args.name)
    this.requireLocal('sandbox snapshot')
    const saved = await this.out
      .spin(`Saving snapshot ${name}`, () =>
        this.api.call('saveSnapshot', {body: {name, ...(this.flags.all ? {all: true} : {})}}),
      )
      .catch((err: unknown) => operatorOnlySnapshot(err, operatorProfile(this.runtime.configDir)))
    const file = this.flags.file
    if (file !== undefined) {
      await this.out.spin(`Writing ${file}`, () => downloadSnapshot(this.api, name, file))
    }
    this.out.done(
      `Saved snapshot ${saved.scope === 'all' ? 'of the whole sandbox' : ''} (${saved.records} rows, ${formatBytes(saved.bytes)}${file === undefined ? '' : `, copied to ${file}`})`.replace(
        '  ',
        ' ',
      ),
      name,
    )
    return file === undefined ? saved : {...saved, file}
  }
}
