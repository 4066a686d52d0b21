import {BaseCommand} from '../../../cli/base-command.js'
import {faultColumns} from '../../../cli/faults.js'
import {outputFlags} from '../../../cli/flags.js'
import type {Fault} from '../../../contract/index.js'

export default class SandboxFaultsList extends BaseCommand<typeof SandboxFaultsList> {
  static override summary =
    "list the profile's faults in the local sandbox, API and delivery, with how often each hit"
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {...outputFlags}

  async run(): Promise<{faults: Fault[]}> {
    this.requireLocal('sandbox faults')
    const list = await this.out.spin('Listing faults', () => this.api.call('listFaults'))
    if (await this.out.printList(list, 'faults', list.faults, faultColumns, this.flags)) return list
    if (list.faults.length === 0)
      this.out.log(
        "No faults. Add one with: payctl sandbox faults add --status 503 --route 'POST /v1/transactions'",
      )
    else await this.out.table(list.faults, faultColumns)
    return list
  }
}
