import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {userBalanceColumns, userBalances} from '../../cli/views.js'
import type {Loose, UserBalance} from '../../contract/index.js'

export default class UsersBalance extends BaseCommand<typeof UsersBalance> {
  static override summary = "show a user's balance in every currency they hold"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_… --json']
  static override args = {id: Args.string({description: 'user id', required: true})}

  async run(): Promise<Loose<UserBalance>> {
    const balance = await this.out.spin('Fetching balance', () =>
      this.api.call('getUserBalance', {params: {id: this.args.id}}),
    )
    const balances = userBalances(balance)
    if (balances.length === 0) this.out.log('No wallets.')
    else this.out.table(balances, userBalanceColumns)
    return balance
  }
}
