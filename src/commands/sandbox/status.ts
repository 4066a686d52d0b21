import {BaseCommand} from '../../cli/base-command.js'
import {isAlive, readState} from '../../cli/sandbox-process.js'
import type {SandboxHealth} from '../../contract/index.js'
import {DEFAULT_LOCAL_URL, PayctlClient, PayctlError, resolveProfile} from '../../core/index.js'

export default class SandboxStatus extends BaseCommand<typeof SandboxStatus> {
  static override summary = 'say whether the local sandbox is up, and how it is set'
  static override description = 'Exits 0 when the sandbox answers, 1 when it does not.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<SandboxHealth & {url: string; pid?: number | undefined}> {
    const state = readState()
    const stored = this.store.read().profiles[this.flags.profile ?? 'local']
    const url = state && isAlive(state.pid) ? state.url : (stored?.baseUrl ?? DEFAULT_LOCAL_URL)
    const client = new PayctlClient({
      profile: resolveProfile({profiles: {}}, {environment: 'local', baseUrl: url}, {}),
      retries: 0,
      timeoutMs: 3_000,
    })
    let health: SandboxHealth
    try {
      health = await client.sandbox.health()
    } catch (err) {
      throw new PayctlError({
        kind: 'api',
        code: 'SANDBOX_NOT_RUNNING',
        message: `no sandbox answers at ${url}`,
        suggestions: ['Try: payctl sandbox start'],
        cause: err,
      })
    }
    this.card([
      ['status', '✓ running'],
      ['url', url],
      ['pid', state?.pid === undefined ? undefined : String(state.pid)],
      ['version', health.version],
      ['responses', health.responseShape],
      ['rate limit', health.rateLimit],
      ['token lifetime', `${health.tokenTtl} s`],
      ['started', health.startedAt],
      ['data', state?.data],
    ])
    return {...health, url, pid: state?.pid}
  }
}
