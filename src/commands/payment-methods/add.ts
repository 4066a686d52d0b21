import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {paymentMethodCard} from '../../cli/views/resource-views.js'
import {PAYMENT_METHOD_TYPES, type PaymentMethod} from '../../contract/index.js'

export default class PaymentMethodsAdd extends BaseCommand<typeof PaymentMethodsAdd> {
  static override summary = 'save a payment method for a user from a token'
  static override description =
    'In the sandbox the tokens are test tokens: tok_visa, tok_card_declined, tok_card_insufficient_funds, tok_ach_success, tok_ach_returned (see docs/money.md).'
  static override examples = ['<%= config.bin %> <%= command.id %> --user usr_… --type card --token tok_visa']
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user id'}),
    type: Flags.option({options: PAYMENT_METHOD_TYPES})({summary: 'kind of payment method'}),
    token: Flags.string({summary: 'token of the instrument (test tokens in the sandbox)'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<PaymentMethod> {
    const f = this.flags
    this.questions.requireFlags({user: f.user, type: f.type, token: f.token})
    const user = f.user ?? (await this.questions.ask('user', 'User id'))
    const type =
      f.type ?? ((await this.questions.ask('type', 'Type', {default: 'card'})) as PaymentMethod['type'])
    const token = f.token ?? (await this.questions.ask('token', 'Token', {default: 'tok_visa'}))
    await this.confirmProduction(`add a payment method to ${user}`, f.yes)
    const pm = await this.out.spin('Saving payment method', () =>
      this.api.call('addPaymentMethod', {
        params: {id: user},
        body: {type, token},
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Saved payment method', pm.id, paymentMethodCard(pm))
    return pm
  }
}
