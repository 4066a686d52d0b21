import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {eventColumns} from '../../cli/webhooks-views.js'
import {DELIVERY_STATUSES, EVENT_NAMES, type EventList} from '../../contract/index.js'

export default class EventsList extends BaseCommand<typeof EventsList> {
  static override summary = 'list recorded events, newest first, with how their deliveries fared'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --type wallet.created --limit 50 --json',
    '<%= config.bin %> <%= command.id %> --delivery failed',
  ]
  static override flags = {
    type: Flags.option({options: EVENT_NAMES})({summary: 'only events of this type'}),
    delivery: Flags.option({options: DELIVERY_STATUSES})({
      summary: 'only events with a delivery in this state',
    }),
    limit: Flags.integer({summary: 'events per page (1-100)', min: 1, max: 100}),
    cursor: Flags.string({summary: 'continue after this cursor (from a previous page)'}),
  }

  async run(): Promise<EventList> {
    const f = this.flags
    const page = await this.spin('Listing events', () =>
      this.api.call('listEvents', {
        query: {type: f.type, delivery: f.delivery, limit: f.limit, cursor: f.cursor},
      }),
    )
    if (page.events.length === 0) this.log('No events.')
    else this.table(page.events, eventColumns)
    if (page.hasMore && page.nextCursor) this.warnLine(`More events: --cursor ${page.nextCursor}`)
    return page
  }
}
