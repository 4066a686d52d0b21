import {outputFlags} from '../../../cli/flags.js'
import {OperatorCommand} from '../../../cli/local-sandbox/operator-command.js'
import type {Column} from '../../../cli/rendering/output.js'
import type {SandboxPartner} from '../../../contract/index.js'

type Row = SandboxPartner & {profiles: string[]}

export default class SandboxPartnersList extends OperatorCommand<typeof SandboxPartnersList> {
  static override summary = 'list the partners the running sandbox serves, with the profiles that hold them'
  static override description =
    "Only the sandbox's operator may do this; a partner never learns another exists."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {...outputFlags}

  protected override profileToActOn(): string | undefined {
    return this.flags?.profile ?? super.profileToActOn()
  }

  async run(): Promise<Row[]> {
    this.requireLocal('sandbox partners')
    const {data} = await this.out
      .spin('Listing partners', () => this.api.call('listPartners'))
      .catch((err: unknown) => this.operatorOnly(err))
    const rows = data.map((p) => ({...p, profiles: this.profilesOf(p.partnerId)}))
    const columns: Column<Row>[] = [
      {header: 'NAME', get: (r) => r.name},
      {header: 'PARTNER ID', get: (r) => r.partnerId},
      {header: 'OPERATOR', get: (r) => (r.operator ? 'yes' : '')},
      {header: 'PROFILES', get: (r) => r.profiles.join(', ')},
      {header: 'CREATED', get: (r) => r.createdAt},
    ]
    if (await this.out.printList(rows, 'partners', rows, columns, this.flags)) return rows
    await this.out.table(rows, columns)
    return rows
  }
}
