import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {registrationCard} from '../../cli/views/webhooks-views.js'
import type {Loose, WebhookWithSecret} from '../../contract/index.js'
import {parseEventSelectors} from '../../core/webhooks/index.js'

export default class WebhooksRegister extends BaseCommand<typeof WebhooksRegister> {
  static override summary = 'register a URL to receive events, and get its signing secret'
  static override description =
    'The answer holds the registration’s whsec_… signing secret, shown only this once: keep it where your receiver can read it. --events takes event names, prefix.* (bnplsvc.*) or *.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --url https://example.test/hooks --events wallet.created,transaction.completed',
    '<%= config.bin %> <%= command.id %> --url http://localhost:3000/hooks --events "*" --json',
  ]
  static override flags = {
    url: Flags.string({summary: 'http(s) URL the events are POSTed to', required: true}),
    events: Flags.string({summary: 'comma-separated event names, prefix.* or *', required: true}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<WebhookWithSecret>> {
    const f = this.flags
    const events = parseEventSelectors(f.events)
    await this.confirmProduction('register a webhook', f.yes)
    const webhook = await this.out.spin('Registering webhook', () =>
      this.api.call('createWebhook', {body: {url: f.url, events}, idempotencyKey: f['idempotency-key']}),
    )
    this.out.created('Registered webhook', webhook.id, registrationCard(webhook), webhook)
    const secret = typeof webhook.secret === 'string' ? webhook.secret : undefined
    if (secret === undefined) {
      // The interface does not say how the signing secret is handed over: not every service answers with it.
      this.out.warn(
        'The service answered without a signing secret, so payctl cannot show one: take it from wherever the service shows it, and keep it where your receiver can read it.',
      )
    } else if (!this.jsonEnabled()) {
      this.out.warn(
        this.io.out.isTTY
          ? 'The signing secret is shown only this once.'
          : `signing secret (shown only once; use --json to capture it): ${secret}`,
      )
    }
    return webhook
  }
}
