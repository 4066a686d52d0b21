import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {paymentMethodColumns} from '../../cli/views/resource-views.js'

export default class PaymentMethodsList extends BaseCommand<typeof PaymentMethodsList> {
  static override summary = "list a user's payment methods"
  static override examples = ['<%= config.bin %> <%= command.id %> --user usr_… --json']
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user id, or the email of one user', required: true}),
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const user = (await this.userIdOf(f.user))!
    await this.out.list(
      {
        key: 'paymentMethods',
        fetch: (cursor, limit) =>
          this.api.call('listPaymentMethods', {params: {id: user}, query: {limit, cursor}}),
        items: (page) => page.paymentMethods,
        columns: paymentMethodColumns,
      },
      f,
    )
  }
}
