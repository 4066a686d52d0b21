import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {walletCard} from '../../cli/views.js'
import type {WalletView} from '../../contract/index.js'

export default class WalletsGet extends BaseCommand<typeof WalletsGet> {
  static override summary = 'show a wallet with its balance and limits'
  static override examples = ['<%= config.bin %> <%= command.id %> wal_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'wallet id', required: true})}

  async run(): Promise<WalletView> {
    const wallet = await this.out.spin('Fetching wallet', () =>
      this.api.call('getWallet', {params: {id: this.args.id}}),
    )
    this.out.card(walletCard(wallet))
    return wallet
  }
}
