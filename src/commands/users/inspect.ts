import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {inspectFlags, pagerFlag} from '../../cli/flags.js'
import {type InvestigationRecord, printInvestigation} from '../../cli/views/inspect-output.js'
import {investigate} from '../../core/index.js'

export default class UsersInspect extends BaseCommand<typeof UsersInspect> {
  static override summary =
    "a user's whole story: who, their wallets and balances, and what moved their money"
  static override examples = [
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> ada@example.test --since 48h',
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --since 24h --utc',
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --wallet wal_0123456789abcdef01234567 --kind deposit --kind refund',
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --since 2026-11-20 --until 2026-11-21 --output ndjson',
  ]
  static override args = {
    user: Args.string({description: 'user id (usr_…), or the email of one user', required: true}),
  }
  static override flags = {
    wallet: Flags.string({char: 'w', summary: "only this one of the user's wallets"}),
    ...inspectFlags,
    ...pagerFlag,
  }

  /** Hundreds of lines: through the pager in a terminal. */
  protected override pagesOutput(): boolean {
    return true
  }

  async run(): Promise<InvestigationRecord | undefined> {
    const f = this.flags
    const inv = await this.out.spin('Reading the story', () =>
      investigate(this.api, {
        subject: {user: this.args.user},
        wallet: f.wallet,
        since: f.since,
        until: f.until,
        kinds: f.kind,
        events: f.events,
        sandbox: this.profile.kind === 'local',
      }),
    )
    return printInvestigation(this.out, inv, {
      json: this.jsonEnabled(),
      output: f.output,
      utc: f.utc,
      oldestFirst: f['oldest-first'],
      wide: f.wide,
    })
  }
}
