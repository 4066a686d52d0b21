import {BaseCommand} from '../../../cli/base-command.js'
import {outputFlags} from '../../../cli/flags.js'
import {snapshotColumns} from '../../../cli/local-sandbox/snapshot-flags.js'
import type {Snapshot} from '../../../contract/index.js'

export default class SandboxSnapshotList extends BaseCommand<typeof SandboxSnapshotList> {
  static override summary = "list the profile's snapshots in the local sandbox, newest first"
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {...outputFlags}

  async run(): Promise<{data: Snapshot[]}> {
    this.requireLocal('sandbox snapshot')
    const list = await this.out.spin('Listing snapshots', () => this.api.call('listSnapshots'))
    if (await this.out.printList(list, 'snapshots', list.data, snapshotColumns, this.flags)) return list
    if (list.data.length === 0) this.out.log('No snapshots. Save one with: payctl sandbox snapshot save NAME')
    else await this.out.table(list.data, snapshotColumns)
    return list
  }
}
