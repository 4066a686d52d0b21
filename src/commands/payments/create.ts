import {Flags} from '@oclif/core'
import {moneyFrom} from '../../cli/amounts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, moneyFlags, yesFlag} from '../../cli/flags.js'
import {walletPaymentCard} from '../../cli/views/resource-views.js'
import type {Loose, WalletPayment} from '../../contract/index.js'

export default class PaymentsCreate extends BaseCommand<typeof PaymentsCreate> {
  static override summary = "pay from a user's wallet (wallet product)"
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_… --amount 19.99USD --merchant "Corner Shop"',
    '<%= config.bin %> <%= command.id %> --user usr_… --amount 1999 --currency USD --idempotency-key order-42',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user who pays'}),
    ...moneyFlags(),
    merchant: Flags.string({summary: 'merchant name'}),
    description: Flags.string({summary: 'free text'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<WalletPayment>> {
    const f = this.flags
    this.questions.requireFlags({user: f.user, amount: f.amount})
    const user = f.user ?? (await this.questions.ask('user', 'User id'))
    const {amount, currency} = await moneyFrom(f, this.questions, '1999 or 19.99USD')
    await this.confirmProduction(`charge ${user}`, f.yes)
    const payment = await this.out.spin('Processing payment', () =>
      this.api.call('processPayment', {
        body: {
          userId: user,
          amount,
          currency,
          ...(f.merchant ? {merchantName: f.merchant} : {}),
          ...(f.description ? {description: f.description} : {}),
        },
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Payment', payment.id, walletPaymentCard(payment), payment)
    return payment
  }
}
