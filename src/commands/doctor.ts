import {BaseCommand} from '../cli/base-command.js'
import {paint} from '../cli/rendering/terminal.js'
import {type Check, PayctlError, runDoctor} from '../core/index.js'

const MARK = {pass: '✓', warn: '!', fail: '✗'} as const
const MARK_STYLE = {pass: 'green', warn: 'yellow', fail: 'red'} as const

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary = 'check the profile file, credentials, proxy, reachability, clock skew and token'
  static override description =
    'One line per check, each failure with a fix. Exits 0 when nothing failed (warnings allowed), 1 otherwise.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile staging --json',
  ]

  async run(): Promise<{ok: boolean; checks: Check[]}> {
    const checks = await this.out.spin('Checking', () =>
      runDoctor(this.store, {profile: this.flags.profile}, this.env),
    )
    for (const c of checks) {
      this.out.log(`${paint(MARK_STYLE[c.status], MARK[c.status])} ${paint('bold', c.name)}: ${c.detail}`)
      if (c.fix && c.status !== 'pass') this.out.log(`    ${paint('cyan', c.fix)}`)
    }
    const failed = checks.filter((c) => c.status === 'fail')
    if (failed.length > 0 && !this.jsonEnabled()) {
      throw new PayctlError({
        kind: 'api',
        code: 'DOCTOR_FAILED',
        message: `${failed.length} check${failed.length > 1 ? 's' : ''} failed: ${failed.map((c) => c.name).join(', ')}`,
      })
    }
    if (failed.length > 0) this.runtime.exitCode = 1
    return {ok: failed.length === 0, checks}
  }
}
