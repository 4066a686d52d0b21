import {BaseCommand} from '../../../cli/base-command.js'
import {listFlags} from '../../../cli/flags.js'
import {faultColumns} from '../../../cli/local-sandbox/fault-flags.js'

export default class SandboxFaultsList extends BaseCommand<typeof SandboxFaultsList> {
  static override summary =
    "list the profile's faults in the local sandbox, API and delivery, with how often each hit"
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --all --json',
  ]
  static override flags = {...listFlags}

  async run(): Promise<void> {
    this.requireLocal('sandbox faults')
    const f = this.flags
    await this.out.list(
      {
        key: 'faults',
        fetch: (cursor, limit) => this.api.call('listFaults', {query: {limit, cursor}}),
        items: (page) => page.faults,
        columns: faultColumns,
        empty:
          "No faults. Add one with: payctl sandbox faults add --status 503 --route 'POST /v1/transactions'",
      },
      f,
    )
  }
}
