import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {snapshotName} from '../../../cli/local-sandbox/snapshot-flags.js'

export default class SandboxSnapshotDelete extends BaseCommand<typeof SandboxSnapshotDelete> {
  static override summary = "delete one of the profile's snapshots in the local sandbox"
  static override examples = ['<%= config.bin %> <%= command.id %> seeded']
  static override args = {name: Args.string({description: 'the snapshot’s name', required: true})}

  async run(): Promise<{name: string; deleted: true}> {
    const name = snapshotName(this.args.name)
    this.requireLocal('sandbox snapshot')
    const deleted = await this.out.spin(`Deleting snapshot ${name}`, () =>
      this.api.call('deleteSnapshot', {params: {name}}),
    )
    this.out.done('Deleted snapshot', name)
    return deleted
  }
}
