import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {text} from '../../cli/rendering/field-readers.js'
import {bankAccountCard} from '../../cli/views/resource-views.js'
import type {BankAccount, EndpointResult} from '../../contract/index.js'

export default class AccountsConnect extends BaseCommand<typeof AccountsConnect> {
  static override summary = 'start connecting a bank account for a user: prints a link token'
  static override description =
    'The link token is what a bank-connection screen consumes. In the sandbox, --complete finishes the link at once (payctl accounts link does it later) and prints the connected account, whose payment method works for ACH transactions.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> usr_…',
    '<%= config.bin %> <%= command.id %> usr_… --complete --test-account ach_returned --json',
  ]
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {
    complete: Flags.boolean({summary: 'finish the link right away (sandbox)'}),
    'test-account': Flags.option({options: ['ach_success', 'ach_returned'] as const, default: 'ach_success'})(
      {
        summary: 'with --complete: how ACH payments from the account behave',
      },
    ),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<EndpointResult<'connectAccount'> | BankAccount> {
    const f = this.flags
    await this.confirmProduction(`connect a bank account for ${this.args.user}`, f.yes)
    const link = await this.out.spin('Creating link token', () =>
      this.api.call('connectAccount', {params: {id: this.args.user}, idempotencyKey: f['idempotency-key']}),
    )
    // The interface spells it both ways; the answer's surface guarantees one of them.
    const linkToken = (link.linkToken ?? link.link_token) as string
    if (!f.complete) {
      this.out.created('Link token', linkToken, [
        ['link token', linkToken],
        ['expires', text(link.expiresAt ?? link.expires_at)],
        ['next', `payctl accounts link ${this.args.user} --link-token ${linkToken}`],
      ])
      return link
    }
    const account = await this.out.spin('Connecting account', () =>
      this.api.call('exchangeLinkToken', {
        params: {id: this.args.user},
        body: {link_token: linkToken, test_account: f['test-account']},
      }),
    )
    this.out.created('Connected account', account.paymentMethodId, bankAccountCard(account))
    return account
  }
}
