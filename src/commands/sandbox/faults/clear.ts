import {BaseCommand} from '../../../cli/base-command.js'

export default class SandboxFaultsClear extends BaseCommand<typeof SandboxFaultsClear> {
  static override summary =
    "remove every one of the profile's faults from the local sandbox, API and delivery"
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<{cleared: number}> {
    this.requireLocal('sandbox faults')
    const result = await this.out.spin('Clearing faults', () => this.api.call('clearFaults'))
    if (this.io.out.isTTY) this.out.done(`Cleared ${result.cleared} fault(s)`)
    else if (!this.jsonEnabled()) this.out.log(String(result.cleared))
    return result
  }
}
