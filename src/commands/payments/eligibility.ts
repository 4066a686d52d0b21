import {Flags} from '@oclif/core'
import {moneyFrom} from '../../cli/amounts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {moneyFlags} from '../../cli/flags.js'
import {eligibilityCard} from '../../cli/views/resource-views.js'
import type {Eligibility, Loose} from '../../contract/index.js'

export default class PaymentsEligibility extends BaseCommand<typeof PaymentsEligibility> {
  static override summary = 'check whether a user can pay an amount from their wallet'
  static override description = 'Exits 0 either way; read "eligible" (or the reasons) from the output.'
  static override examples = ['<%= config.bin %> <%= command.id %> --user usr_… --amount 19.99USD']
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user id'}),
    ...moneyFlags(),
  }

  async run(): Promise<Loose<Eligibility>> {
    const f = this.flags
    this.questions.requireFlags({user: f.user, amount: f.amount})
    const user = f.user ?? (await this.questions.ask('user', 'User id'))
    const {amount, currency} = await moneyFrom(f, this.questions, '1999 or 19.99USD')
    const result = await this.out.spin('Checking eligibility', () =>
      this.api.call('checkEligibility', {body: {userId: user, amount, currency}}),
    )
    this.out.card(eligibilityCard(result))
    return result
  }
}
