import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {parseDuration} from '../../cli/duration.js'

export default class SandboxAdvance extends BaseCommand<typeof SandboxAdvance> {
  static override summary = "move the local sandbox's clock forward, settling what falls due"
  static override description =
    'ACH, wire and crypto payments settle on the sandbox clock; this jumps ahead instead of waiting.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 3d',
    '<%= config.bin %> <%= command.id %> 90s --json',
  ]
  static override args = {by: Args.string({description: 'how far: 90s, 15m, 2h, 3d', required: true})}

  async run(): Promise<{now: string; offsetSeconds: number; settled: number}> {
    this.requireLocal('the sandbox clock')
    const seconds = parseDuration(this.args.by, 'by')
    const clock = await this.out.spin('Advancing the clock', () =>
      this.api.call('sandboxAdvanceClock', {body: {seconds}}),
    )
    this.out.log(`✓ Sandbox clock now ${clock.now}; ${clock.settled} transaction(s) settled`)
    return clock
  }
}
