import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {snapshotName} from '../../cli/local-sandbox/snapshot-flags.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static override summary =
    "delete every record of the profile's partner in the local sandbox, keeping its credentials"
  static override description =
    'With --to, return to a snapshot instead of emptying: the same as payctl sandbox snapshot restore NAME.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --yes',
    '<%= config.bin %> <%= command.id %> --to seeded --yes',
  ]
  static override flags = {
    yes: yesFlag,
    to: Flags.string({summary: 'return to this snapshot rather than to nothing', helpValue: 'NAME'}),
  }

  async run(): Promise<{reset: true; snapshot?: string}> {
    const to = this.flags.to === undefined ? undefined : snapshotName(this.flags.to, '--to')
    this.requireLocal('sandbox reset')
    if (!this.flags.yes && this.interactive) {
      await this.questions.confirm(
        to === undefined
          ? `Delete every record in the sandbox at ${this.profile.baseUrl}?`
          : `Replace the state at ${this.profile.baseUrl} with snapshot ${to}?`,
      )
    }
    if (to !== undefined) {
      await this.out.spin(`Resetting sandbox to ${to}`, () =>
        this.api.call('restoreSnapshot', {params: {name: to}}),
      )
      this.out.log(`✓ Sandbox at ${this.profile.baseUrl} reset to snapshot ${to}`)
      return {reset: true, snapshot: to}
    }
    const result = await this.out.spin('Resetting sandbox', () => this.api.call('sandboxReset'))
    this.out.log(`✓ Sandbox at ${this.profile.baseUrl} reset`)
    return result
  }
}
