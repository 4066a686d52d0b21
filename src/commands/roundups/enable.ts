import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {
  checkMaxFlag,
  roundupCurrency,
  roundupSettingsFlags,
  settingsChange,
} from '../../cli/roundups-flags.js'
import {roundupSettingsCard} from '../../cli/views/roundups-views.js'
import type {Loose, RoundupSettingsRecord} from '../../contract/index.js'

export default class RoundupsEnable extends BaseCommand<typeof RoundupsEnable> {
  static override summary = 'turn round-ups on for a user, optionally changing the settings too'
  static override description =
    "Transfers go to --destination-account: a bank account the user connected, for USD round-ups (in the sandbox, payctl accounts connect USER --complete --jq .id prints a new one's ba_… id), or a wallet of another user in the round-up currency, such as one kept for savings. Not the user's own wallet, which is where the round-ups come from, and not a second one: a user has one wallet per currency."
  static override examples = [
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --multiplier 2 --max 5 --destination-account ba_0123456789abcdef01234567',
  ]
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {...roundupSettingsFlags, 'idempotency-key': idempotencyKeyFlag, yes: yesFlag}

  async run(): Promise<Loose<RoundupSettingsRecord>> {
    const given = settingsChange(this.flags)
    await checkMaxFlag(given.max, this.flags.currency, () => roundupCurrency(this.api, this.args.user))
    const {enabled: _enabled, ...change} = given.change
    await this.confirmProduction(`turn round-ups on for ${this.args.user}`, this.flags.yes)
    const settings = await this.out.spin('Enabling round-ups', () =>
      this.api.call('enableRoundups', {
        params: {id: this.args.user},
        body: change,
        idempotencyKey: this.flags['idempotency-key'],
      }),
    )
    this.out.created('Round-ups on for', this.args.user, roundupSettingsCard(settings))
    return settings
  }
}
