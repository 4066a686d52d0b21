import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {parseDuration} from '../../cli/duration.js'
import {yesFlag} from '../../cli/flags.js'
import {webhookCard} from '../../cli/views/webhooks-views.js'
import type {WebhookWithSecret} from '../../contract/index.js'

export default class WebhooksRotateSecret extends BaseCommand<typeof WebhooksRotateSecret> {
  static override summary = 'replace a webhook’s signing secret, keeping the old one valid for a while'
  static override description =
    'Until --expires-in has passed, each delivery is signed with both secrets (two v1 signatures), so a receiver can switch to the new secret at its own pace. --expires-in 0 retires the old secret at once.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567 --expires-in 1h --json',
    '<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567 --expires-in 0',
  ]
  static override args = {id: Args.string({description: 'webhook id', required: true})}
  static override flags = {
    'expires-in': Flags.string({
      summary: 'how long the old secret keeps signing: 0, 30m, 24h, up to 7d',
      default: '24h',
    }),
    yes: yesFlag,
  }

  async run(): Promise<WebhookWithSecret> {
    const f = this.flags
    const expiresIn = f['expires-in'].trim() === '0' ? 0 : parseDuration(f['expires-in'], 'expires-in')
    await this.confirmProduction(`rotate the signing secret of ${this.args.id}`, f.yes)
    const webhook = await this.out.spin('Rotating secret', () =>
      this.api.call('rotateWebhookSecret', {params: {id: this.args.id}, body: {expiresIn}}),
    )
    this.out.created('Rotated the signing secret of', webhook.id, webhookCard(webhook))
    if (!this.jsonEnabled() && !this.io.out.isTTY) {
      this.out.warn(`new signing secret (shown only once; use --json to capture it): ${webhook.secret}`)
    }
    return webhook
  }
}
