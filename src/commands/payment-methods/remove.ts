import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'

export default class PaymentMethodsRemove extends BaseCommand<typeof PaymentMethodsRemove> {
  static override summary = "remove a user's saved payment method"
  static override description =
    'A bank account linked through the payment method (accounts link) is removed with it. Transactions already made keep its id; new ones from it are refused (PAYMENT_METHOD_NOT_FOUND).'
  static override examples = ['<%= config.bin %> <%= command.id %> pm_0123456789abcdef01234567 --user usr_…']
  static override args = {id: Args.string({description: 'payment method id', required: true})}
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user id'}),
    yes: yesFlag,
  }

  async run(): Promise<{id: string; deleted: true}> {
    const {args, flags: f} = this
    const user = f.user ?? (await this.questions.ask('user', 'User id'))
    await this.confirmProduction(`remove payment method ${args.id} of ${user}`, f.yes)
    const result = await this.out.spin('Removing payment method', () =>
      this.api.call('removePaymentMethod', {params: {id: user, methodId: args.id}}),
    )
    this.out.done('Removed payment method', result.id)
    return result
  }
}
