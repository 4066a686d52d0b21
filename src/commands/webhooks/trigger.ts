import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {paint} from '../../cli/rendering/terminal.js'
import {EVENT_NAMES, type EventEnvelope, overridesHelp} from '../../contract/index.js'
import {PayctlError} from '../../core/index.js'
import {parseEventName, parseTriggerOverrides} from '../../core/webhooks/index.js'

export default class WebhooksTrigger extends BaseCommand<typeof WebhooksTrigger> {
  static override summary = 'make the sandbox produce a real event of a type (sandbox only)'
  static override description =
    `Creates what the event needs (a user and a wallet, and a payment method, a transaction, a second user, round-ups or a BNPL payment where the flow needs one) and runs the flow that records it, through the API's own operations, so your handler gets a real event about real records. bnplsvc.payment.completed and bnplsvc.payment.failed move the sandbox clock on (six weeks, or the settlement delay) to collect instalments, as \`payctl sandbox advance\` does. The objects it creates record their own events too (wallet.created, always).

--user and --wallet make the event about records you have (the wallet's user and currency follow it; with --user alone, the user's wallet in the currency, or a new one); --set field=value sets a field of the event's record, as the endpoint that creates it would take it (metadata.<key> for a metadata key; an amount in the smallest unit, or a decimal with its currency: 50.00USD). A flow the records named refuse (a wallet short of the amount) fails with the API's error and leaves nothing behind.

Event names: ${EVENT_NAMES.join(', ')}.

Overrides each event takes:
${overridesHelp()}`
  static override examples = [
    '<%= config.bin %> <%= command.id %> wallet.created',
    '<%= config.bin %> <%= command.id %> transaction.failed --json',
    '<%= config.bin %> <%= command.id %> transaction.failed --user usr_0123456789abcdef01234567 --wallet wal_0123456789abcdef01234567 --set amount=5000 --set metadata.order=42',
    '<%= config.bin %> <%= command.id %> bnplsvc.payment.created --set amount=120.00EUR --set merchantName=Allbirds',
  ]
  static override args = {event: Args.string({description: 'event name', required: true})}
  static override flags = {
    user: Flags.string({summary: 'make the event about this user of yours (usr_…)'}),
    wallet: Flags.string({
      summary: 'make the event about this wallet of yours (wal_…); its user and currency follow',
    }),
    set: Flags.string({
      summary: 'set a field of the event’s record: field=value, metadata.<key>=value (repeatable)',
      multiple: true,
    }),
  }

  async run(): Promise<EventEnvelope> {
    const event = parseEventName(this.args.event)
    const f = this.flags
    // Checked before anything is sent, with the rules the sandbox applies.
    const overrides = parseTriggerOverrides(event, {user: f.user, wallet: f.wallet, set: f.set ?? []})
    if (this.profile.kind === 'production') {
      throw new PayctlError({
        kind: 'usage',
        code: 'NOT_SANDBOX',
        message: `webhooks trigger only works against a sandbox; profile "${this.profile.name}" is ${this.profile.environment}`,
      })
    }
    const result = await this.out.spin(`Triggering ${event}`, () =>
      this.api.call('sandboxTrigger', {body: {event, ...overrides}}),
    )
    const made = result.synthesized ? paint('dim', ' (synthesized data)') : ''
    this.out.created(`Triggered ${event}`, result.event.id, [
      ['event', result.event.event],
      ['id', `${result.event.id}${made}`],
      ...Object.entries(result.objects).map(([name, id]): [string, string] => [name, id]),
    ])
    // Under --json: the event as it is delivered.
    return result.event
  }
}
