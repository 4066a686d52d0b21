import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags} from '../../cli/flags.js'
import type {Column} from '../../cli/rendering/output.js'
import {paint} from '../../cli/rendering/terminal.js'
import {type AuditEntry, AuditLog} from '../../core/index.js'

export default class AuditList extends BaseCommand<typeof AuditList> {
  static override summary = 'show the local audit log of commands that changed something at the service'
  static override description =
    'Every command that sends a mutation appends one line to audit.log in the config dir: time, profile, environment, the command (secret values replaced), outcome, and the idempotency keys and request ids of what it sent. Nothing is ever sent anywhere.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --limit 100 --json',
    '<%= config.bin %> <%= command.id %> --profile staging --errors',
  ]
  static override flags = {
    limit: Flags.integer({summary: 'newest entries to show', default: 20, min: 1}),
    errors: Flags.boolean({summary: 'only commands that failed'}),
    ...outputFlags,
  }

  async run(): Promise<{entries: AuditEntry[]; file: string}> {
    const log = new AuditLog(this.runtime.configDir)
    const wanted = (e: AuditEntry) =>
      (!this.flags.errors || e.outcome === 'error') &&
      (!this.flags.profile || e.profile === this.flags.profile)
    const entries = log.read().filter(wanted).slice(0, this.flags.limit)
    const result = {entries, file: log.path}
    // The command line last: in a narrow terminal it goes whole on a line under its entry.
    const columns: Column<AuditEntry>[] = [
      {header: 'TIME', get: (e) => e.time},
      {
        header: 'OUTCOME',
        get: (e) =>
          e.outcome === 'ok' ? paint('green', 'ok') : paint('red', `${e.code ?? 'error'} (${e.exitCode})`),
      },
      {header: 'PROFILE', get: (e) => `${e.profile} (${e.environment})`},
      {header: 'REQUESTS', get: (e) => String(e.requestCount)},
      {header: 'FIRST REQUEST ID', get: (e) => e.requests.find((r) => r.requestId)?.requestId ?? ''},
      {header: 'COMMAND', get: (e) => e.command},
    ]
    if (await this.out.printList(result, 'entries', entries, columns, this.flags)) return result
    if (entries.length === 0) this.out.log('No audited commands yet.')
    else await this.out.table(entries, columns)
    return result
  }
}
