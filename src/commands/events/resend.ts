import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {deliveryColumns} from '../../cli/views/webhooks-views.js'
import {MAX_RESEND_TIMES, type ResendResult} from '../../contract/index.js'

export default class EventsResend extends BaseCommand<typeof EventsResend> {
  static override summary = 'deliver an event again, as new deliveries with the same event id'
  static override examples = [
    '<%= config.bin %> <%= command.id %> evt_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> evt_0123456789abcdef01234567 --webhook whk_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> evt_0123456789abcdef01234567 --times 3',
  ]
  static override args = {id: Args.string({description: 'event id', required: true})}
  static override flags = {
    webhook: Flags.string({
      summary:
        'resend to this webhook only (default: every webhook and listen session that selects the event)',
    }),
    times: Flags.integer({
      summary: `deliveries to each webhook and listen session, 1 to ${MAX_RESEND_TIMES}: what a receiver that dedupes by event id must take`,
      default: 1,
      min: 1,
      max: MAX_RESEND_TIMES,
    }),
    yes: yesFlag,
  }

  async run(): Promise<ResendResult> {
    const f = this.flags
    await this.confirmProduction(`resend event ${this.args.id}`, f.yes)
    const result = await this.out.spin('Resending event', () =>
      this.api.call('resendEvent', {
        params: {id: this.args.id},
        body: {
          ...(f.webhook === undefined ? {} : {webhookId: f.webhook}),
          ...(f.times === 1 ? {} : {times: f.times}),
        },
      }),
    )
    if (result.deliveries.length === 0) {
      this.out.warn(`No webhook or listen session selects ${result.eventId}: nothing was resent.`)
    } else if (!this.io.out.isTTY) {
      for (const d of result.deliveries) this.out.log(d.id)
    } else {
      this.out.done('Resending', result.eventId)
      await this.out.table(result.deliveries, deliveryColumns)
    }
    return result
  }
}
