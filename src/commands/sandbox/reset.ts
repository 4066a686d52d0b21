import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {PayctlError} from '../../core/index.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static override summary =
    "delete every record of the profile's partner in the local sandbox, keeping its credentials"
  static override examples = ['<%= config.bin %> <%= command.id %> --yes']
  static override flags = {yes: yesFlag}

  async run(): Promise<{reset: true}> {
    if (this.profile.kind !== 'local') {
      throw new PayctlError({
        kind: 'usage',
        code: 'NOT_LOCAL',
        message: `sandbox reset only works against the local sandbox; profile "${this.profile.name}" is ${this.profile.environment} (${this.profile.baseUrl})`,
      })
    }
    if (!this.flags.yes && this.interactive) {
      const {confirm} = await import('@inquirer/prompts')
      const ok = await confirm(
        {
          message: `Delete all users, wallets and transactions in the sandbox at ${this.profile.baseUrl}?`,
          default: false,
        },
        {output: process.stderr},
      )
      if (!ok) throw new PayctlError({kind: 'usage', code: 'CANCELLED', message: 'cancelled'})
    }
    const result = await this.spin('Resetting sandbox', () => this.api.sandbox.reset())
    this.log(`✓ Sandbox at ${this.profile.baseUrl} reset`)
    return result
  }
}
