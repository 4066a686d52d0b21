import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {attemptLines, deliveryColumns, eventCard} from '../../cli/webhooks-views.js'
import type {EventDetail} from '../../contract/index.js'

export default class EventsGet extends BaseCommand<typeof EventsGet> {
  static override summary = 'show an event with each of its deliveries and their attempts'
  static override examples = ['<%= config.bin %> <%= command.id %> evt_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'event id', required: true})}

  async run(): Promise<EventDetail> {
    const event = await this.out.spin('Fetching event', () =>
      this.api.call('getEvent', {params: {id: this.args.id}}),
    )
    this.out.card(eventCard(event))
    if (!this.jsonEnabled()) {
      this.out.log('')
      if (event.deliveries.length === 0) {
        this.out.log('No deliveries: no webhook or listen session selected this event.')
      } else {
        this.out.table(event.deliveries, deliveryColumns)
        for (const d of event.deliveries) {
          const injected = d.injected === null ? '' : ` (injected: ${d.injected})`
          if (d.attemptLog.length > 0) this.out.log(`\n${d.id}${injected}\n${attemptLines(d).join('\n')}`)
        }
        const total = event.deliveryCounts?.total ?? event.deliveries.length
        if (total > event.deliveries.length) {
          this.out.log(`\nShowing the newest ${event.deliveries.length} of ${total} deliveries.`)
        }
      }
    }
    return event
  }
}
