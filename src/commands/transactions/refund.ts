import {Args, Flags} from '@oclif/core'
import {amountInCurrencyOf} from '../../cli/amounts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {transactionCard} from '../../cli/views/resource-views.js'
import type {TransactionView} from '../../contract/index.js'

export default class TransactionsRefund extends BaseCommand<typeof TransactionsRefund> {
  static override summary = 'refund a completed payment or deposit, wholly or in part'
  static override examples = [
    '<%= config.bin %> <%= command.id %> txn_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> txn_0123456789abcdef01234567 --amount 5.00USD --reason "damaged item"',
  ]
  static override args = {id: Args.string({description: 'transaction id', required: true})}
  static override flags = {
    amount: Flags.string({summary: 'amount to refund (default: all that is left): 500 or 5.00USD'}),
    reason: Flags.string({summary: 'why, for the record'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<TransactionView> {
    const f = this.flags
    const amount =
      f.amount === undefined
        ? undefined
        : await amountInCurrencyOf(f.amount, async () => {
            const tx = await this.api.call('getTransaction', {params: {id: this.args.id}})
            return tx.currency
          })
    await this.confirmProduction(`refund ${this.args.id}`, f.yes)
    const refund = await this.out.spin('Refunding', () =>
      this.api.call('refundTransaction', {
        params: {id: this.args.id},
        body: {...(amount === undefined ? {} : {amount}), ...(f.reason ? {reason: f.reason} : {})},
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Refund', refund.id, transactionCard(refund))
    return refund
  }
}
