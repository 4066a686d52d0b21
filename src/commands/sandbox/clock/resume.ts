import {BaseCommand} from '../../../cli/base-command.js'
import type {ClockReading} from '../../../contract/index.js'

export default class SandboxClockResume extends BaseCommand<typeof SandboxClockResume> {
  static override summary = "let your partner's frozen sandbox clock run again from where it stopped"
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<ClockReading> {
    this.requireLocal('the sandbox clock')
    const clock = await this.out.spin('Resuming the clock', () => this.api.call('sandboxResumeClock'))
    this.out.log(`✓ Sandbox clock running again from ${clock.now}`)
    return clock
  }
}
