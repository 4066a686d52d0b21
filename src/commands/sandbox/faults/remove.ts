import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'

export default class SandboxFaultsRemove extends BaseCommand<typeof SandboxFaultsRemove> {
  static override summary = 'remove one fault from the local sandbox'
  static override examples = ['<%= config.bin %> <%= command.id %> flt_0123456789abcdef01234567']
  static override args = {
    id: Args.string({description: 'fault id (flt_…, from faults list)', required: true}),
  }

  async run(): Promise<{id: string; deleted: true}> {
    this.requireLocal('sandbox faults')
    const result = await this.out.spin('Removing fault', () =>
      this.api.call('removeFault', {params: {id: this.args.id}}),
    )
    this.out.done('Removed fault', result.id)
    return result
  }
}
