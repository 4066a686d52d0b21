import {BaseCommand} from '../cli/base-command.js'
import {paint} from '../cli/terminal.js'
import {type Check, PayctlError, runDoctor} from '../core/index.js'

const MARK = {pass: paint('green', '✓'), warn: paint('yellow', '!'), fail: paint('red', '✗')}

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary = 'check the profile file, credentials, proxy, reachability, clock skew and token'
  static override description =
    'One line per check, each failure with a fix. Exits 0 when nothing failed (warnings allowed), 1 otherwise.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile staging --json',
  ]

  async run(): Promise<{ok: boolean; checks: Check[]}> {
    const checks = await this.spin('Checking', () => runDoctor(this.store, {profile: this.flags.profile}))
    for (const c of checks) {
      this.log(`${MARK[c.status]} ${paint('bold', c.name)}: ${c.detail}`)
      if (c.fix && c.status !== 'pass') this.log(`    ${paint('cyan', c.fix)}`)
    }
    const failed = checks.filter((c) => c.status === 'fail')
    if (failed.length > 0 && !this.jsonEnabled()) {
      throw new PayctlError({
        kind: 'api',
        code: 'DOCTOR_FAILED',
        message: `${failed.length} check${failed.length > 1 ? 's' : ''} failed: ${failed.map((c) => c.name).join(', ')}`,
      })
    }
    if (failed.length > 0) process.exitCode = 1
    return {ok: failed.length === 0, checks}
  }
}
