import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags} from '../../cli/flags.js'
import {webhookColumns} from '../../cli/views/webhooks-views.js'
import type {WebhookList} from '../../contract/index.js'

export default class WebhooksList extends BaseCommand<typeof WebhooksList> {
  static override summary = 'list webhook registrations'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
    '<%= config.bin %> <%= command.id %> --output csv --columns id,url',
  ]
  static override flags = {...outputFlags}

  async run(): Promise<WebhookList> {
    const list = await this.out.spin('Listing webhooks', () => this.api.call('listWebhooks'))
    if (await this.out.printList(list, 'webhooks', list.webhooks, webhookColumns, this.flags)) return list
    if (list.webhooks.length === 0)
      this.out.log('No webhooks. Register one with: payctl webhooks register --url … --events …')
    else await this.out.table(list.webhooks, webhookColumns)
    return list
  }
}
