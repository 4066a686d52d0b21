import {BaseCommand} from '../../../cli/base-command.js'
import type {ClockReading} from '../../../contract/index.js'

export default class SandboxClockFreeze extends BaseCommand<typeof SandboxClockFreeze> {
  static override summary =
    "stop your partner's sandbox clock: nothing it drives happens until it moves again"
  static override description =
    'Records are dated at the frozen time, and no payment settles, no instalment is collected, until `sandbox advance` moves the clock or `sandbox clock resume` lets it run.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<ClockReading> {
    this.requireLocal('the sandbox clock')
    const clock = await this.out.spin('Freezing the clock', () => this.api.call('sandboxFreezeClock'))
    this.out.log(`✓ Sandbox clock frozen at ${clock.now}`)
    return clock
  }
}
