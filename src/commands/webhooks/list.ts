import {BaseCommand} from '../../cli/base-command.js'
import {webhookColumns} from '../../cli/webhooks-views.js'
import type {WebhookList} from '../../contract/index.js'

export default class WebhooksList extends BaseCommand<typeof WebhooksList> {
  static override summary = 'list webhook registrations'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<WebhookList> {
    const list = await this.spin('Listing webhooks', () => this.api.call('listWebhooks'))
    if (list.webhooks.length === 0)
      this.log('No webhooks. Register one with: payctl webhooks register --url … --events …')
    else this.table(list.webhooks, webhookColumns)
    return list
  }
}
