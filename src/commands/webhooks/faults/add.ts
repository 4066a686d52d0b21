import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {
  deliveryFaultFlags,
  deliveryFaultsFrom,
  faultLine,
  seedFlag,
} from '../../../cli/local-sandbox/fault-flags.js'
import type {DeliveryFault} from '../../../contract/index.js'
import {usageError} from '../../../core/index.js'

export default class WebhooksFaultsAdd extends BaseCommand<typeof WebhooksFaultsAdd> {
  static override summary =
    "inject delivery failures into a webhook registration's deliveries (local sandbox)"
  static override description =
    `Replaces the registration's delivery fault, if it had one. Bodies stay byte-exact: a duplicate carries the same event id and bytes, a tampered delivery the same body with a signature that does not verify (your receiver must refuse it with 401). --fail-first fails the first N attempts of each event without sending them, so the retry schedule runs. events get shows what was injected into each delivery and attempt; sandbox faults list and remove manage the fault.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567 --duplicate 0.2 --reorder 5',
    '<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567 --fail-first 2 --tamper-signature 0.05 --seed 7',
    '<%= config.bin %> <%= command.id %> whk_0123456789abcdef01234567 --delay 3s --json',
  ]
  static override args = {webhook: Args.string({description: 'webhook id', required: true})}
  static override flags = {
    ...deliveryFaultFlags,
    seed: seedFlag,
  }

  async run(): Promise<DeliveryFault> {
    const f = this.flags
    const settings = deliveryFaultsFrom(f, f.seed)
    if (settings === undefined) {
      throw usageError(
        'a delivery fault needs an effect: --duplicate, --reorder, --delay, --fail-first or --tamper-signature',
        'MISSING_FLAG',
        {flag: '--duplicate'},
      )
    }
    this.requireLocal('webhooks faults')
    const fault = await this.out.spin('Adding delivery fault', () =>
      this.api.call('addDeliveryFault', {body: {webhookId: this.args.webhook, ...settings}}),
    )
    if (this.out.done('Added fault', fault.id)) this.out.log(`  ${faultLine(fault)}`)
    return fault
  }
}
