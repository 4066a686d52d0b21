import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {userCard} from '../../cli/views.js'
import type {Loose, User} from '../../contract/index.js'

export default class UsersGet extends BaseCommand<typeof UsersGet> {
  static override summary = 'show a user'
  static override examples = ['<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'user id', required: true})}

  async run(): Promise<Loose<User>> {
    const user = await this.out.spin('Fetching user', () =>
      this.api.call('getUser', {params: {id: this.args.id}}),
    )
    this.out.card(userCard(user))
    return user
  }
}
