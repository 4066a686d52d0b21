import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {yesFlag} from '../../../cli/flags.js'
import {
  checkMaxFlag,
  roundupCurrency,
  roundupSettingsFlags,
  settingsChange,
} from '../../../cli/roundups-flags.js'
import {askRoundupSettings, destinationChecker, walkthroughStart} from '../../../cli/roundups-wizard.js'
import {roundupSettingsCard} from '../../../cli/views/roundups-views.js'
import type {Loose, RoundupSettingsRecord} from '../../../contract/index.js'
import {PayctlError, usageError} from '../../../core/index.js'

export default class RoundupsSettingsSet extends BaseCommand<typeof RoundupsSettingsSet> {
  static override summary =
    "change a user's round-up settings; in a terminal with no flags, walk through them"
  static override description =
    'Only the settings given change. Without flags, in a terminal, it asks for each one (the multiplier from a list) and confirms before turning round-ups on; without a terminal, give at least one flag.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --multiplier 2 --max 5',
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --destination-account ba_0123456789abcdef01234567 --enabled',
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --no-enabled',
  ]
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {
    ...roundupSettingsFlags,
    enabled: Flags.boolean({allowNo: true, summary: 'turn round-ups on (--enabled) or off (--no-enabled)'}),
    yes: yesFlag,
  }

  async run(): Promise<Loose<RoundupSettingsRecord>> {
    const user = this.args.user
    const given = settingsChange(this.flags)
    await checkMaxFlag(given.max, this.flags.currency, () => roundupCurrency(this.api, user))
    let change = given.change
    if (Object.keys(change).length === 0) {
      if (!this.interactive) {
        throw usageError(
          'nothing to change: give --multiplier, --max, --destination-account, --currency or --enabled/--no-enabled',
          'MISSING_FLAG',
          {flag: '--multiplier'},
        )
      }
      const current = await this.out.spin('Fetching round-up settings', () =>
        this.api.call('getRoundupSettings', {params: {id: user}}),
      )
      const start = walkthroughStart(user, current)
      const check = destinationChecker(start, {
        wallet: (id) =>
          this.api.call('getWallet', {params: {id}}).catch((err: unknown) => {
            if (err instanceof PayctlError && err.status === 404) return undefined
            throw err
          }),
        bankAccounts: async (id) => (await this.api.call('listAccounts', {params: {id}})).accounts,
      })
      change = await askRoundupSettings(start, this.runtime.prompter, check)
      if (Object.keys(change).length === 0) {
        this.out.log('Nothing changed.')
        return current
      }
    }
    await this.confirmProduction(`change the round-up settings of ${user}`, this.flags.yes)
    const settings = await this.out.spin('Saving round-up settings', () =>
      this.api.call('updateRoundupSettings', {params: {id: user}, body: change}),
    )
    this.out.created('Round-up settings saved for', user, roundupSettingsCard(settings))
    return settings
  }
}
