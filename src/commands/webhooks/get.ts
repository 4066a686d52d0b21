import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {webhookCard} from '../../cli/views/webhooks-views.js'
import type {Webhook} from '../../contract/index.js'

export default class WebhooksGet extends BaseCommand<typeof WebhooksGet> {
  static override summary = 'show a webhook registration (its secret only by its last four characters)'
  static override examples = ['<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'webhook id', required: true})}

  async run(): Promise<Webhook> {
    const webhook = await this.out.spin('Fetching webhook', () =>
      this.api.call('getWebhook', {params: {id: this.args.id}}),
    )
    this.out.card(webhookCard(webhook))
    return webhook
  }
}
