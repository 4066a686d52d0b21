import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {roundupTransferCard} from '../../cli/views/roundups-views.js'
import type {Loose, RoundupTransfer} from '../../contract/index.js'

export default class RoundupsTransfer extends BaseCommand<typeof RoundupsTransfer> {
  static override summary = "move all of a user's pending round-ups to their destination, as one transfer"
  static override description =
    'To a wallet the transfer completes at once; to a connected bank account it is an ACH withdrawal that completes when it settles (and, if it is returned, the round-ups are pending again).'
  static override examples = ['<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567']
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {'idempotency-key': idempotencyKeyFlag, yes: yesFlag}

  async run(): Promise<Loose<RoundupTransfer>> {
    await this.confirmProduction(`transfer the pending round-ups of ${this.args.user}`, this.flags.yes)
    const transfer = await this.out.spin('Transferring round-ups', () =>
      this.api.call('transferRoundups', {
        params: {id: this.args.user},
        idempotencyKey: this.flags['idempotency-key'],
      }),
    )
    this.out.created(
      `Round-up transfer${typeof transfer.status === 'string' ? ` ${transfer.status}` : ''}:`,
      transfer.id,
      roundupTransferCard(transfer),
      transfer,
    )
    return transfer
  }
}
