import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {bankAccountCard} from '../../cli/views/resource-views.js'
import type {BankAccount} from '../../contract/index.js'

export default class AccountsLink extends BaseCommand<typeof AccountsLink> {
  static override summary = 'finish connecting a bank account with its link token'
  static override examples = ['<%= config.bin %> <%= command.id %> usr_… --link-token link_…']
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {
    'link-token': Flags.string({summary: 'the token from payctl accounts connect'}),
    'test-account': Flags.option({options: ['ach_success', 'ach_returned'] as const, default: 'ach_success'})(
      {
        summary: 'sandbox: how ACH payments from the account behave',
      },
    ),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<BankAccount> {
    const f = this.flags
    const token = f['link-token'] ?? (await this.questions.ask('link-token', 'Link token'))
    await this.confirmProduction(`connect a bank account for ${this.args.user}`, f.yes)
    const account = await this.out.spin('Connecting account', () =>
      this.api.call('exchangeLinkToken', {
        params: {id: this.args.user},
        body: {link_token: token, test_account: f['test-account']},
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Connected account', account.paymentMethodId, bankAccountCard(account))
    return account
  }
}
