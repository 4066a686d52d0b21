import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../../cli/flags.js'
import {bnplCard} from '../../../cli/views/bnpl-views.js'
import type {BnplPayment, Loose} from '../../../contract/index.js'

export default class BnplPaymentsCancel extends BaseCommand<typeof BnplPaymentsCancel> {
  static override summary = 'cancel a pending or active BNPL payment, refunding what was collected'
  static override description =
    'Asks first in a terminal, unless --yes; never asks without one (scripts, CI). Completed, cancelled and failed payments cannot be cancelled.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> bnpl_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> bnpl_0123456789abcdef01234567 --yes --reason "order returned"',
  ]
  static override args = {id: Args.string({description: 'BNPL payment id', required: true})}
  static override flags = {
    reason: Flags.string({summary: 'why, for the refunds'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<BnplPayment>> {
    const f = this.flags
    if (f.yes) {
      // Confirmed on the command line.
    } else if (this.interactive) {
      await this.questions.confirm(
        `Cancel BNPL payment ${this.args.id} in ${this.profile.environment}? Collected instalments are refunded; the rest is never collected.`,
      )
    } else {
      await this.confirmProduction(`cancel BNPL payment ${this.args.id}`, false)
    }
    const payment = await this.out.spin('Cancelling BNPL payment', () =>
      this.api.call('cancelBnplPayment', {
        params: {id: this.args.id},
        body: f.reason ? {reason: f.reason} : {},
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Cancelled BNPL payment', payment.id ?? this.args.id, bnplCard(payment), payment)
    return payment
  }
}
