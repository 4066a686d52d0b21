import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {userColumns} from '../../cli/views/resource-views.js'

export default class UsersList extends BaseCommand<typeof UsersList> {
  static override summary = 'find users by email, external id or name, oldest first'
  static override description =
    "A ticket names a customer by email, not by id: this finds them. It is a sandbox extension (GET /v1/users): the platform's interface shows no way to find users, so against a service without it payctl says so in one line and exits 1."
  static override examples = [
    '<%= config.bin %> <%= command.id %> --email ada@example.test',
    '<%= config.bin %> <%= command.id %> --external-id crm-42 --json',
    '<%= config.bin %> <%= command.id %> --name lovelace --all --output csv',
  ]
  static override flags = {
    email: Flags.string({summary: 'only users with this email, in any case'}),
    'external-id': Flags.string({summary: 'only the users with this external id (your own identifier)'}),
    name: Flags.string({summary: 'only users whose full name contains this, in any case'}),
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    await this.out.list(
      {
        key: 'users',
        fetch: (cursor, limit) =>
          this.api.call('listUsers', {
            query: {email: f.email, external_id: f['external-id'], name: f.name, limit, cursor},
          }),
        items: (page) => page.users,
        columns: userColumns,
        filters: [f.email, f['external-id']],
      },
      f,
    )
  }
}
