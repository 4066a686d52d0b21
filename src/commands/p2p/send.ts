import {Flags} from '@oclif/core'
import {moneyFrom} from '../../cli/amounts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, moneyFlags, yesFlag} from '../../cli/flags.js'
import {p2pCard} from '../../cli/views/resource-views.js'
import type {Loose, P2PTransfer} from '../../contract/index.js'

export default class P2pSend extends BaseCommand<typeof P2pSend> {
  static override summary = "send money from one user's wallet to another's"
  static override examples = [
    '<%= config.bin %> <%= command.id %> --from usr_a --to usr_b --amount 10.00USD --note "lunch"',
  ]
  static override flags = {
    from: Flags.string({summary: 'user who sends'}),
    to: Flags.string({summary: 'user who receives'}),
    ...moneyFlags(),
    note: Flags.string({summary: 'message to the receiver'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<P2PTransfer>> {
    const f = this.flags
    this.questions.requireFlags({from: f.from, to: f.to, amount: f.amount})
    const from = f.from ?? (await this.questions.ask('from', 'From user id'))
    const to = f.to ?? (await this.questions.ask('to', 'To user id'))
    const {amount, currency} = await moneyFrom(f, this.questions, '1000 or 10.00USD')
    await this.confirmProduction(`send money from ${from} to ${to}`, f.yes)
    const transfer = await this.out.spin('Sending', () =>
      this.api.call('sendP2P', {
        body: {fromUserId: from, toUserId: to, amount, currency, ...(f.note ? {note: f.note} : {})},
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Sent', transfer.id, p2pCard(transfer), transfer)
    return transfer
  }
}
