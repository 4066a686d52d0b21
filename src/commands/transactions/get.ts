import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {transactionCard} from '../../cli/views.js'
import type {TransactionView} from '../../contract/index.js'

export default class TransactionsGet extends BaseCommand<typeof TransactionsGet> {
  static override summary = 'show a transaction'
  static override examples = ['<%= config.bin %> <%= command.id %> txn_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'transaction id', required: true})}

  async run(): Promise<TransactionView> {
    const tx = await this.out.spin('Fetching transaction', () =>
      this.api.call('getTransaction', {params: {id: this.args.id}}),
    )
    this.out.card(transactionCard(tx))
    return tx
  }
}
