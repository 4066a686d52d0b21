import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags} from '../../cli/flags.js'
import type {Column} from '../../cli/rendering/output.js'
import {paint} from '../../cli/rendering/terminal.js'

interface ProfileRow {
  name: string
  current: boolean
  environment: string
  baseUrl: string | undefined
  auth: string
  loggedIn: boolean
}

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override summary = 'list the profiles in the profile file'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  static override flags = {...outputFlags}

  async run(): Promise<ProfileRow[]> {
    const file = this.store.read()
    const rows = Object.entries(file.profiles).map(([name, p]) => ({
      name,
      current: name === file.currentProfile,
      environment: p.environment,
      baseUrl: p.baseUrl,
      auth: p.auth ? (p.auth.variant === 'A' ? 'partner credentials' : 'API key') : 'none',
      loggedIn: p.auth !== undefined,
    }))
    const columns: Column<ProfileRow>[] = [
      {header: 'CURRENT', get: (r) => (r.current ? paint('green', '*') : '')},
      {header: 'NAME', get: (r) => r.name},
      {header: 'ENVIRONMENT', get: (r) => r.environment},
      {header: 'BASE URL', get: (r) => r.baseUrl ?? ''},
      {header: 'AUTH', get: (r) => r.auth},
    ]
    if (await this.out.printList(rows, 'profiles', rows, columns, this.flags)) return rows
    if (rows.length === 0)
      this.out.log('No profiles yet. Try: payctl sandbox start, or payctl auth login --env local')
    else await this.out.table(rows, columns)
    return rows
  }
}
