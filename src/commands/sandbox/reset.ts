import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static override summary =
    "delete every record of the profile's partner in the local sandbox, keeping its credentials"
  static override examples = ['<%= config.bin %> <%= command.id %> --yes']
  static override flags = {yes: yesFlag}

  async run(): Promise<{reset: true}> {
    this.requireLocal('sandbox reset')
    if (!this.flags.yes && this.interactive) {
      await this.questions.confirm(`Delete every record in the sandbox at ${this.profile.baseUrl}?`)
    }
    const result = await this.out.spin('Resetting sandbox', () => this.api.call('sandboxReset'))
    this.out.log(`✓ Sandbox at ${this.profile.baseUrl} reset`)
    return result
  }
}
