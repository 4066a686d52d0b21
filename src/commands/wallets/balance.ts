import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {balanceCard} from '../../cli/views.js'
import type {Balance, Loose} from '../../contract/index.js'

export default class WalletsBalance extends BaseCommand<typeof WalletsBalance> {
  static override summary = "show a wallet's balance: available, pending, reserved and total"
  static override examples = ['<%= config.bin %> <%= command.id %> wal_… --json']
  static override args = {id: Args.string({description: 'wallet id', required: true})}

  async run(): Promise<Loose<Balance>> {
    const balance = await this.out.spin('Fetching balance', () =>
      this.api.call('getWalletBalance', {params: {id: this.args.id}}),
    )
    this.out.card(balanceCard(balance))
    return balance
  }
}
