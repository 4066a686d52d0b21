import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {parseDuration} from '../../cli/duration.js'
import {usageError} from '../../core/index.js'

/** `--to`: an ISO 8601 time with its zone, or a date (midnight UTC). */
function parseTime(text: string): string {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(date)
    ? Date.parse(date)
    : Number.NaN
  if (Number.isNaN(ms)) {
    throw usageError(
      `--to "${text}" is not a time: use an ISO 8601 time with its zone (2027-03-01T00:00:00Z) or a date (2027-03-01, midnight UTC)`,
      'INVALID_FLAG',
      {flag: '--to', value: text},
    )
  }
  return new Date(ms).toISOString()
}

export default class SandboxAdvance extends BaseCommand<typeof SandboxAdvance> {
  static override summary = "move your partner's sandbox clock forward, finishing what falls due"
  static override description =
    "ACH, wire and crypto payments settle, BNPL instalments are collected and round-up transfers finish on the clock of the partner that made them; this jumps ahead instead of waiting. Only the profile's partner's clock moves: other partners of the sandbox keep their own time."
  static override examples = [
    '<%= config.bin %> <%= command.id %> 3d',
    '<%= config.bin %> <%= command.id %> --to 2027-03-01T00:00:00Z',
    '<%= config.bin %> <%= command.id %> 90s --json',
  ]
  static override args = {by: Args.string({description: 'how far: 90s, 15m, 2h, 3d (or give --to)'})}
  static override flags = {
    to: Flags.string({
      summary:
        'move to this time instead (ISO 8601 with its zone, or a date): forward only, at most a year ahead',
    }),
  }

  async run(): Promise<{now: string; offsetSeconds: number; frozen: boolean; settled: number}> {
    const {by} = this.args
    const {to} = this.flags
    if (by !== undefined && to !== undefined)
      throw usageError('give how far (BY) or --to, not both', 'INVALID_FLAG', {flag: '--to'})
    if (by === undefined && to === undefined)
      throw usageError('say how far to move the clock: BY (e.g. 3d) or --to TIME', 'MISSING_FLAG', {
        flag: '--to',
      })
    const body = to === undefined ? {seconds: parseDuration(by ?? '', 'by')} : {to: parseTime(to)}
    this.requireLocal('the sandbox clock')
    const clock = await this.out.spin('Advancing the clock', () =>
      this.api.call('sandboxAdvanceClock', {body}),
    )
    this.out.log(
      `✓ Sandbox clock now ${clock.now}${clock.frozen ? ' (frozen)' : ''}; ${clock.settled} record(s) fell due and were finished`,
    )
    return clock
  }
}
