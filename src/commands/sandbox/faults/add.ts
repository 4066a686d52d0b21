import {BaseCommand} from '../../../cli/base-command.js'
import {apiFaultFlags, faultLine} from '../../../cli/local-sandbox/fault-flags.js'
import type {ApiFault, ApiFaultRequest, FaultStatus} from '../../../contract/index.js'
import {usageError} from '../../../core/index.js'

export default class SandboxFaultsAdd extends BaseCommand<typeof SandboxFaultsAdd> {
  static override summary = "inject failures into the profile's own requests to a route of the local sandbox"
  static override description =
    `The fault hits only the requests of the profile's partner, from the next one on, until it is removed (faults remove, faults clear), used up (--times) or the sandbox is reset. Give at least one of --status, --latency and --drop; --latency goes with either of the others.

--drop after commits the change (and its idempotent answer) and then cuts the connection: a client that retries with the same Idempotency-Key gets the stored answer, one that does not acts twice.`
  static override examples = [
    "<%= config.bin %> <%= command.id %> --route 'POST /v1/transactions' --status 503 --rate 0.2",
    "<%= config.bin %> <%= command.id %> --route 'POST /v1/transactions' --drop after --rate 0.05 --seed 42",
    "<%= config.bin %> <%= command.id %> --route '* /v1/wallets/{id}' --latency 100ms..2s",
    "<%= config.bin %> <%= command.id %> --route 'POST /v1/wallets' --status 429 --retry-after 30s --times 1 --json",
  ]
  static override flags = apiFaultFlags

  async run(): Promise<ApiFault> {
    const f = this.flags
    const body: ApiFaultRequest = {route: f.route}
    if (f.status !== undefined) body.status = Number(f.status) as FaultStatus
    if (f['retry-after'] !== undefined) body.retryAfterSeconds = Number(f['retry-after'])
    if (f.latency !== undefined) body.latency = JSON.parse(f.latency) as ApiFaultRequest['latency']
    if (f.drop !== undefined) body.drop = f.drop as 'before' | 'after'
    if (f.rate !== undefined) body.rate = Number(f.rate)
    if (f.times !== undefined) body.times = Number(f.times)
    if (f.seed !== undefined) body.seed = Number(f.seed)
    checkCombination(body)
    this.requireLocal('sandbox faults')
    const fault = await this.out.spin('Adding fault', () => this.api.call('addApiFault', {body}))
    if (this.out.done('Added fault', fault.id)) this.out.log(`  ${faultLine(fault)}`)
    return fault
  }
}

/** What the flags cannot say one by one: an effect, and no answer that contradicts another. */
function checkCombination(body: ApiFaultRequest): void {
  if (body.status === undefined && body.drop === undefined && body.latency === undefined) {
    throw usageError('a fault needs an effect: --status, --latency or --drop', 'MISSING_FLAG', {
      flag: '--status',
    })
  }
  if (body.status !== undefined && body.drop !== undefined) {
    throw usageError(
      '--drop and --status do not go together: a fault answers or cuts, not both',
      'INVALID_FLAG',
      {
        flag: '--drop',
      },
    )
  }
  if (body.retryAfterSeconds !== undefined && body.status !== 429 && body.status !== 503) {
    throw usageError('--retry-after goes with --status 429 or 503', 'INVALID_FLAG', {flag: '--retry-after'})
  }
}
