import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {listFlags, timeFlags} from '../../cli/flags.js'
import {transactionColumns} from '../../cli/views/resource-views.js'
import {TRANSACTION_STATUSES, TRANSACTION_TYPES} from '../../contract/index.js'

export default class TransactionsList extends BaseCommand<typeof TransactionsList> {
  static override summary = 'list transactions, newest first'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --wallet wal_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --status processing --json',
    '<%= config.bin %> <%= command.id %> --all --output ndjson | jq .amount',
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --since 2026-11-20 --until 2026-11-21',
  ]
  static override flags = {
    wallet: Flags.string({char: 'w', summary: 'only transactions of this wallet'}),
    user: Flags.string({char: 'u', summary: "only transactions of this user's wallets (id or email)"}),
    status: Flags.option({options: TRANSACTION_STATUSES})({summary: 'only this status'}),
    type: Flags.option({options: TRANSACTION_TYPES})({summary: 'only this type'}),
    ...timeFlags,
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const user = await this.userIdOf(f.user)
    await this.out.list(
      {
        key: 'transactions',
        fetch: (cursor, limit) =>
          this.api.call('listTransactions', {
            query: {
              walletId: f.wallet,
              userId: user,
              status: f.status,
              type: f.type,
              since: f.since,
              until: f.until,
              limit,
              cursor,
            },
          }),
        items: (page) => page.transactions,
        columns: transactionColumns,
        filters: [f.wallet, f.status, f.type],
      },
      f,
    )
  }
}
