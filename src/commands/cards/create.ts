import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {virtualCardCard} from '../../cli/views/resource-views.js'
import type {Loose, VirtualCard} from '../../contract/index.js'

export default class CardsCreate extends BaseCommand<typeof CardsCreate> {
  static override summary = "issue a virtual card that draws on one of a user's wallets"
  static override description =
    'The full card number and CVC are shown once, in this response; everywhere else the card is masked.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> usr_… --wallet wal_… --label "Online shopping"',
  ]
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {
    wallet: Flags.string({char: 'w', summary: "wallet the card draws on (default: the user's USD wallet)"}),
    label: Flags.string({summary: 'label, at most 50 characters'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<VirtualCard>> {
    const f = this.flags
    await this.confirmProduction(`issue a card to ${this.args.user}`, f.yes)
    const card = await this.out.spin('Issuing card', () =>
      this.api.call('createCard', {
        params: {id: this.args.user},
        body: {...(f.wallet ? {walletId: f.wallet} : {}), ...(f.label ? {label: f.label} : {})},
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Issued card', card.id, virtualCardCard(card), card)
    if (card.number !== undefined) this.out.warn('The card number and CVC are not shown again.')
    return card
  }
}
