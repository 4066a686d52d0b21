import {Flags} from '@oclif/core'
import {moneyFrom} from '../../../cli/amounts.js'
import {BaseCommand} from '../../../cli/base-command.js'
import {idempotencyKeyFlag, moneyFlags, yesFlag} from '../../../cli/flags.js'
import {bnplCard} from '../../../cli/views/bnpl-views.js'
import type {BnplPayment, Loose} from '../../../contract/index.js'

export default class BnplPaymentsCreate extends BaseCommand<typeof BnplPaymentsCreate> {
  static override summary = 'create a BNPL payment: four instalments two weeks apart, the first at purchase'
  static override description =
    "The instalments are collected from the user's wallet in the payment's currency. The payment is pending until the first is collected (after the delay a sandbox settles payments in: payctl sandbox start --settle-after), active until the last, then completed; an instalment the wallet cannot pay fails it."
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --amount 240.00USD --merchant Allbirds',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user id'}),
    ...moneyFlags(),
    merchant: Flags.string({summary: 'merchant name'}),
    description: Flags.string({summary: 'free text'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<BnplPayment>> {
    const f = this.flags
    this.questions.requireFlags({user: f.user, amount: f.amount, merchant: f.merchant})
    const userId = f.user ?? (await this.questions.ask('user', 'User id'))
    const {amount, currency, text: amountText} = await moneyFrom(f, this.questions, '24000 or 240.00USD')
    const merchantName = f.merchant ?? (await this.questions.ask('merchant', 'Merchant name'))
    await this.confirmProduction(`create a BNPL payment of ${amountText}`, f.yes)
    const payment = await this.out.spin('Creating BNPL payment', () =>
      this.api.call('createBnplPayment', {
        body: {
          userId,
          amount,
          currency,
          merchantName,
          ...(f.description ? {description: f.description} : {}),
        },
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created(
      `BNPL payment${typeof payment.status === 'string' ? ` ${payment.status}` : ''}:`,
      payment.id,
      bnplCard(payment),
      payment,
    )
    return payment
  }
}
