import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags} from '../../cli/flags.js'
import {bankAccountColumns} from '../../cli/views/resource-views.js'
import type {BankAccount} from '../../contract/index.js'

export default class AccountsList extends BaseCommand<typeof AccountsList> {
  static override summary = "list a user's connected bank accounts"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_… --json']
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {...outputFlags}

  async run(): Promise<{accounts: BankAccount[]}> {
    const result = await this.out.spin('Listing accounts', () =>
      this.api.call('listAccounts', {params: {id: this.args.user}}),
    )
    if (await this.out.printList(result, 'accounts', result.accounts, bankAccountColumns, this.flags))
      return result
    if (result.accounts.length === 0) this.out.log('No connected accounts.')
    else await this.out.table(result.accounts, bankAccountColumns)
    return result
  }
}
