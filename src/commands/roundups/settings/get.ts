import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {roundupSettingsCard} from '../../../cli/roundups-views.js'
import type {Loose, RoundupSettingsRecord} from '../../../contract/index.js'

export default class RoundupsSettingsGet extends BaseCommand<typeof RoundupsSettingsGet> {
  static override summary = "show a user's round-up settings (the defaults until they are set)"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --json']
  static override args = {user: Args.string({description: 'user id', required: true})}

  async run(): Promise<Loose<RoundupSettingsRecord>> {
    const settings = await this.out.spin('Fetching round-up settings', () =>
      this.api.call('getRoundupSettings', {params: {id: this.args.user}}),
    )
    this.out.card(roundupSettingsCard(settings))
    return settings
  }
}
