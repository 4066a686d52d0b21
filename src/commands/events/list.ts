import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {eventColumns} from '../../cli/webhooks-views.js'
import {DELIVERY_STATUSES, EVENT_NAMES} from '../../contract/index.js'

export default class EventsList extends BaseCommand<typeof EventsList> {
  static override summary = 'list recorded events, newest first, with how their deliveries fared'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --type wallet.created --limit 50 --json',
    '<%= config.bin %> <%= command.id %> --delivery failed --all --output ndjson',
  ]
  static override flags = {
    type: Flags.option({options: EVENT_NAMES})({summary: 'only events of this type'}),
    delivery: Flags.option({options: DELIVERY_STATUSES})({
      summary: 'only events with a delivery in this state',
    }),
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    await this.out.list(
      {
        key: 'events',
        fetch: (cursor, limit) =>
          this.api.call('listEvents', {query: {type: f.type, delivery: f.delivery, limit, cursor}}),
        items: (page) => page.events,
        columns: eventColumns,
      },
      f,
    )
  }
}
