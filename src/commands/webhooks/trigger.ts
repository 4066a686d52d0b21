import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {paint} from '../../cli/terminal.js'
import {EVENT_NAMES, type TriggerResult} from '../../contract/index.js'
import {PayctlError} from '../../core/index.js'
import {parseEventName} from '../../core/webhooks/index.js'

export default class WebhooksTrigger extends BaseCommand<typeof WebhooksTrigger> {
  static override summary = 'make the sandbox produce a realistic event of a type (sandbox only)'
  static override description =
    `Creates what the event needs (a user and a wallet, and a payment method, a transaction, a second user, round-ups or a BNPL payment where the flow needs one) and runs the flow that records it, so your handler gets a real event without clicking through anything. bnplsvc.payment.completed and bnplsvc.payment.failed move the sandbox clock on (six weeks, or the settlement delay) to collect instalments, as \`payctl sandbox advance\` does. An event whose flow the trigger does not run is recorded with realistic made-up data ("synthesized"). The objects it creates record their own events too (wallet.created, always).

Event names: ${EVENT_NAMES.join(', ')}.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> wallet.created',
    '<%= config.bin %> <%= command.id %> transaction.failed --json',
  ]
  static override args = {event: Args.string({description: 'event name', required: true})}

  async run(): Promise<TriggerResult> {
    const event = parseEventName(this.args.event)
    if (this.profile.kind === 'production') {
      throw new PayctlError({
        kind: 'usage',
        code: 'NOT_SANDBOX',
        message: `webhooks trigger only works against a sandbox; profile "${this.profile.name}" is ${this.profile.environment}`,
      })
    }
    const result = await this.out.spin(`Triggering ${event}`, () =>
      this.api.call('sandboxTrigger', {body: {event}}),
    )
    const made = result.synthesized ? paint('dim', ' (synthesized data)') : ''
    this.out.created(`Triggered ${event}`, result.event.id, [
      ['event', result.event.event],
      ['id', `${result.event.id}${made}`],
      ...Object.entries(result.objects).map(([name, id]): [string, string] => [name, id]),
    ])
    return result
  }
}
