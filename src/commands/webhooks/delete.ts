import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'

export default class WebhooksDelete extends BaseCommand<typeof WebhooksDelete> {
  static override summary = 'delete a webhook registration; its pending deliveries stop'
  static override examples = ['<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567']
  static override args = {id: Args.string({description: 'webhook id', required: true})}
  static override flags = {yes: yesFlag}

  async run(): Promise<{id: string; deleted: true}> {
    await this.confirmProduction(`delete webhook ${this.args.id}`, this.flags.yes)
    const result = await this.out.spin('Deleting webhook', () =>
      this.api.call('deleteWebhook', {params: {id: this.args.id}}),
    )
    this.out.done('Deleted webhook', result.id)
    return result
  }
}
