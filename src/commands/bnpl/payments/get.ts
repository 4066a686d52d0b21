import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {bnplCard, installmentColumns, schedule} from '../../../cli/bnpl-views.js'
import type {BnplPayment, Loose} from '../../../contract/index.js'

export default class BnplPaymentsGet extends BaseCommand<typeof BnplPaymentsGet> {
  static override summary = 'show a BNPL payment and its instalment schedule'
  static override examples = ['<%= config.bin %> <%= command.id %> bnpl_0123456789abcdef01234567']
  static override args = {id: Args.string({description: 'BNPL payment id', required: true})}

  async run(): Promise<Loose<BnplPayment>> {
    const payment = await this.out.spin('Fetching BNPL payment', () =>
      this.api.call('getBnplPayment', {params: {id: this.args.id}}),
    )
    this.out.card(bnplCard(payment))
    const instalments = schedule(payment)
    if (instalments.length > 0) {
      this.out.log('')
      this.out.table(instalments, installmentColumns(payment.currency))
    }
    return payment
  }
}
