import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {userColumns} from '../../cli/views/resource-views.js'
import {findUsersPage} from '../../core/index.js'

export default class UsersList extends BaseCommand<typeof UsersList> {
  static override summary =
    'find users by a part of their email or name, by email, external id or name, oldest first'
  static override description =
    "A ticket names a customer by email or name, not by id: this finds them. It is a sandbox extension (GET /v1/users): the platform's interface shows no way to find users, so against a service without it payctl says so in one line and exits 1. Against a service that lists users but does not search them, --search reads the pages and keeps the matches itself (and says so on stderr)."
  static override examples = [
    '<%= config.bin %> <%= command.id %> --search jane',
    '<%= config.bin %> <%= command.id %> --email ada@example.test',
    '<%= config.bin %> <%= command.id %> --external-id crm-42 --json',
    '<%= config.bin %> <%= command.id %> --name lovelace --all --output csv',
  ]
  static override flags = {
    search: Flags.string({
      char: 's',
      summary: 'only users whose email or name contains this, in any case (jane, @example.test)',
    }),
    email: Flags.string({summary: 'only users with this email, in any case'}),
    'external-id': Flags.string({summary: 'only the users with this external id (your own identifier)'}),
    name: Flags.string({summary: 'only users whose full name contains this, in any case'}),
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const filters = {search: f.search, email: f.email, externalId: f['external-id'], name: f.name}
    let told = false
    const onLocalSearch = () => {
      if (!told)
        this.out.warn('This service does not search users: payctl reads its pages and keeps the matches.')
      told = true
    }
    await this.out.list(
      {
        key: 'users',
        fetch: (cursor, limit) => findUsersPage(this.api, filters, {cursor, limit}, onLocalSearch),
        items: (page) => page.users,
        columns: userColumns,
        // Not the email: --email matches it in any case, so the column may say more than the flag.
        filters: [f['external-id']],
      },
      f,
    )
  }
}
