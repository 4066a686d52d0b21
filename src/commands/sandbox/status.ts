import {BaseCommand} from '../../cli/base-command.js'
import {findSandbox} from '../../cli/local-sandbox/sandbox-process.js'
import type {ClockReading, SandboxHealth} from '../../contract/index.js'
import {PayctlError} from '../../core/index.js'

export default class SandboxStatus extends BaseCommand<typeof SandboxStatus> {
  static override summary = 'say whether the local sandbox is up, and how it is set'
  static override description =
    "Exits 0 when the sandbox answers, 1 when it does not. The clock shown is the profile's partner's (each partner of a sandbox has its own); without credentials, the operator's."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<SandboxHealth & {url: string; inspector?: string; partnerClock?: ClockReading}> {
    const {url, health, state} = await this.out.spin('Asking the sandbox', () =>
      findSandbox(this.runtime.configDir, this.store, this.flags.profile),
    )
    if (!health) {
      throw new PayctlError({
        kind: 'api',
        code: 'SANDBOX_NOT_RUNNING',
        message: `no sandbox answers at ${url}`,
        suggestions: ['Try: payctl sandbox start'],
      })
    }
    const partnerClock = await this.partnerClock(url)
    // Known from what this config dir's sandbox wrote at start (a sandbox found otherwise: unknown).
    const inspector = state?.url === url ? (state.inspector ?? undefined) : undefined
    const clock = partnerClock ?? health.clock
    this.out.card([
      ['status', '✓ running'],
      ['url', url],
      ['inspector', inspector],
      ['pid', health.pid === undefined ? undefined : String(health.pid)],
      ['version', health.version],
      ['responses', health.responseShape],
      ['rate limit', health.rateLimit],
      ['token lifetime', `${health.tokenTtl} s`],
      [
        'settles after',
        health.settleAfterSeconds === undefined ? undefined : `${health.settleAfterSeconds} s`,
      ],
      ['sandbox clock', clock === undefined ? undefined : `${clock.now}${clock.frozen ? ' (frozen)' : ''}`],
      ['started', health.startedAt],
      ['data', state?.data],
    ])
    return {
      ...health,
      url,
      ...(inspector === undefined ? {} : {inspector}),
      ...(partnerClock === undefined ? {} : {partnerClock}),
    }
  }

  /** The clock of the profile's partner, when the profile signs in to this sandbox; else undefined. */
  async partnerClock(url: string): Promise<ClockReading | undefined> {
    try {
      if (this.profile.baseUrl !== url || this.profile.auth === undefined) return undefined
      return await this.api.call('sandboxClock')
    } catch {
      return undefined
    }
  }
}
