import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {currencyFlag, listFlags} from '../../cli/flags.js'
import {walletColumns} from '../../cli/views/resource-views.js'

export default class WalletsList extends BaseCommand<typeof WalletsList> {
  static override summary = 'list wallets, optionally of one user or currency'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> --currency USD --all --output csv --columns id,user,total',
    '<%= config.bin %> <%= command.id %> --limit 50 --json',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'only wallets of this user (id or email)'}),
    currency: currencyFlag(),
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const user = await this.userIdOf(f.user)
    await this.out.list(
      {
        key: 'wallets',
        fetch: (cursor, limit) =>
          this.api.call('listWallets', {query: {userId: user, currency: f.currency, limit, cursor}}),
        items: (page) => page.wallets,
        columns: walletColumns,
        filters: [user, f.currency],
      },
      f,
    )
  }
}
