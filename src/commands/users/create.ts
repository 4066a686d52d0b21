import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {userCard} from '../../cli/views/resource-views.js'
import type {Loose, User} from '../../contract/index.js'

export default class UsersCreate extends BaseCommand<typeof UsersCreate> {
  static override summary = 'create a user'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --email ada@example.test --first-name Ada --last-name Lovelace',
    '<%= config.bin %> <%= command.id %> --email ada@example.test --first-name Ada --last-name Lovelace --external-id crm-42 --json',
  ]
  static override flags = {
    email: Flags.string({summary: 'email address'}),
    'first-name': Flags.string({summary: 'first name'}),
    'last-name': Flags.string({summary: 'last name'}),
    'external-id': Flags.string({summary: 'your own identifier for the user'}),
    'partner-id': Flags.string({summary: "partner the user belongs to (default: the profile's partner)"}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<User>> {
    const f = this.flags
    this.questions.requireFlags({email: f.email, 'first-name': f['first-name'], 'last-name': f['last-name']})
    const email = f.email ?? (await this.questions.ask('email', 'Email'))
    const first = f['first-name'] ?? (await this.questions.ask('first-name', 'First name'))
    const last = f['last-name'] ?? (await this.questions.ask('last-name', 'Last name'))
    await this.confirmProduction('create a user', f.yes)
    const partnerId = f['partner-id'] ?? this.profile.auth?.partnerId
    const user = await this.out.spin('Creating user', () =>
      this.api.call('createUser', {
        body: {
          email,
          first_name: first,
          last_name: last,
          ...(partnerId ? {partner_id: partnerId} : {}),
          ...(f['external-id'] ? {external_id: f['external-id']} : {}),
        },
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Created user', user.id, userCard(user))
    return user
  }
}
