import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags} from '../../cli/flags.js'
import {pendingCard, pendingRoundups, roundupColumns} from '../../cli/roundups-views.js'
import type {Loose, PendingRoundups} from '../../contract/index.js'

export default class RoundupsPending extends BaseCommand<typeof RoundupsPending> {
  static override summary = "show a user's round-ups not yet transferred, and their total"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567']
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {...outputFlags}

  async run(): Promise<Loose<PendingRoundups>> {
    const pending = await this.out.spin('Fetching pending round-ups', () =>
      this.api.call('getPendingRoundups', {params: {id: this.args.user}}),
    )
    const roundups = pendingRoundups(pending)
    if (await this.out.printList(pending, 'roundups', roundups, roundupColumns, this.flags)) return pending
    this.out.card(pendingCard(pending))
    if (roundups.length > 0) {
      this.out.log('')
      this.out.table(roundups, roundupColumns)
    }
    return pending
  }
}
