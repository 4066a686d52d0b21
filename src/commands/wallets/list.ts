import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {currencyFlag} from '../../cli/flags.js'
import {walletColumns} from '../../cli/views.js'
import type {WalletList} from '../../contract/index.js'

export default class WalletsList extends BaseCommand<typeof WalletsList> {
  static override summary = 'list wallets, optionally of one user or currency'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> --currency USD --limit 50 --json',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'only wallets of this user'}),
    currency: currencyFlag(),
    limit: Flags.integer({summary: 'wallets per page (1-100)', min: 1, max: 100}),
    cursor: Flags.string({summary: 'continue after this cursor (from a previous page)'}),
  }

  async run(): Promise<WalletList> {
    const f = this.flags
    const page = await this.spin('Listing wallets', () =>
      this.api.wallets.list({userId: f.user, currency: f.currency, limit: f.limit, cursor: f.cursor}),
    )
    if (page.wallets.length === 0) this.log('No wallets.')
    else this.table(page.wallets, walletColumns)
    if (page.hasMore && page.nextCursor) this.warnLine(`More wallets: --cursor ${page.nextCursor}`)
    return page
  }
}
