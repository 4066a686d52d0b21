import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {listFlags, timeFlags} from '../../cli/flags.js'
import {eventColumns} from '../../cli/views/webhooks-views.js'
import {DELIVERY_STATUSES, EVENT_NAMES} from '../../contract/index.js'

export default class EventsList extends BaseCommand<typeof EventsList> {
  static override summary = 'list recorded events, newest first, with how their deliveries fared'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --type wallet.created --limit 50 --json',
    '<%= config.bin %> <%= command.id %> --delivery failed --all --output ndjson',
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --since 24h',
    '<%= config.bin %> <%= command.id %> --transaction txn_0123456789abcdef01234567',
  ]
  static override flags = {
    type: Flags.option({options: EVENT_NAMES})({summary: 'only events of this type'}),
    delivery: Flags.option({options: DELIVERY_STATUSES})({
      summary: 'only events with a delivery in this state',
    }),
    user: Flags.string({
      char: 'u',
      summary:
        'only events about this user (id or email), their wallets, and transactions touching their wallets',
    }),
    wallet: Flags.string({char: 'w', summary: 'only events about this wallet and transactions touching it'}),
    transaction: Flags.string({
      summary: 'only events about this transaction (with the other leg of a transfer, and its refunds)',
    }),
    ...timeFlags,
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const user = await this.userIdOf(f.user)
    await this.out.list(
      {
        key: 'events',
        fetch: (cursor, limit) =>
          this.api.call('listEvents', {
            query: {
              type: f.type,
              delivery: f.delivery,
              userId: user,
              walletId: f.wallet,
              transactionId: f.transaction,
              since: f.since,
              until: f.until,
              limit,
              cursor,
            },
          }),
        items: (page) => page.events,
        columns: eventColumns,
        filters: [f.type],
      },
      f,
    )
  }
}
