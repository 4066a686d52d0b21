import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {inspectFlags} from '../../cli/flags.js'
import {type InvestigationRecord, printInvestigation} from '../../cli/views/inspect-output.js'
import {investigate} from '../../core/index.js'

export default class WalletsInspect extends BaseCommand<typeof WalletsInspect> {
  static override summary = "a wallet's whole story: its owner, its balance, and what moved its money"
  static override examples = [
    '<%= config.bin %> <%= command.id %> wal_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> wal_0123456789abcdef01234567 --since 7d --oldest-first',
    '<%= config.bin %> <%= command.id %> wal_0123456789abcdef01234567 --kind event --json',
  ]
  static override args = {wallet: Args.string({description: 'wallet id (wal_…)', required: true})}
  static override flags = inspectFlags

  async run(): Promise<InvestigationRecord | undefined> {
    const f = this.flags
    const inv = await this.out.spin('Reading the story', () =>
      investigate(this.api, {
        subject: {wallet: this.args.wallet},
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
