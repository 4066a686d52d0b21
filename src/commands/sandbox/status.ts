import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {findSandbox, type RunningSandbox, runningSandboxes} from '../../cli/local-sandbox/sandbox-process.js'
import {ABSENT} from '../../cli/rendering/field-readers.js'
import type {Column} from '../../cli/rendering/output.js'
import type {ClockReading, SandboxHealth} from '../../contract/index.js'
import {PayctlError} from '../../core/index.js'

export default class SandboxStatus extends BaseCommand<typeof SandboxStatus> {
  static override summary = 'say whether the local sandbox is up, and how it is set'
  static override description =
    "Exits 0 when the sandbox answers, 1 when it does not. The clock shown is the profile's partner's (each partner of a sandbox has its own); without credentials, the operator's.\n--all lists instead every sandbox you run on this machine (Linux), whatever config dir started it, and exits 0 even when there is none; with --json: {\"sandboxes\": [{pid, configDir, url}]}."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
    '<%= config.bin %> <%= command.id %> --all',
  ]
  static override flags = {
    all: Flags.boolean({
      summary: 'list every sandbox you run on this machine, with the config dir that started each',
    }),
  }

  async run(): Promise<
    | (SandboxHealth & {url: string; inspector?: string; partnerClock?: ClockReading})
    | {sandboxes: RunningSandbox[]}
  > {
    if (this.flags.all) return this.listAll()
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

  /** Every sandbox of this user on this machine, and how to stop one. */
  async listAll(): Promise<{sandboxes: RunningSandbox[]}> {
    const sandboxes = runningSandboxes()
    if (sandboxes.length === 0) this.out.warn('No sandbox runs on this machine.')
    else {
      await this.out.table(sandboxes, RUNNING_COLUMNS)
      this.out.warn('Stop one with its config dir: PAYCTL_CONFIG_DIR=DIR payctl sandbox stop')
    }
    return {sandboxes}
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

const RUNNING_COLUMNS: Column<RunningSandbox>[] = [
  {header: 'PID', get: (s) => String(s.pid)},
  {header: 'URL', get: (s) => s.url ?? ABSENT},
  {header: 'CONFIG DIR', get: (s) => s.configDir},
]
