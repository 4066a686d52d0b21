import type {Command} from '@oclif/core'
import {type EndpointId, endpoints} from '../../contract/index.js'
import {resolveUserId} from '../../core/index.js'
import {BaseCommand} from '../base-command.js'
import {type OneCallFlags, oneCallOf} from './one-call.js'

/**
 * A command that reads one record with one GET and prints it: what it calls and how it prints are
 * its entry in ONE_CALL_COMMANDS (one-call.ts), which bin/run.js's fast path follows too. The
 * command file holds only its help text and its one argument.
 */
export abstract class OneCallCommand<T extends typeof Command> extends BaseCommand<T> {
  async run(): Promise<unknown> {
    const call = oneCallOf(this.id ?? '')
    if (call === undefined)
      throw new Error(`${this.id} is no entry of ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts)`)
    const param = /\{(\w+)\}/.exec(endpoints[call.operation].path)![1]!
    const operation = call.operation as EndpointId
    const record = await this.out.spin(call.spin, async () => {
      const given = this.positional[0] ?? ''
      const arg = call.user === true ? await resolveUserId(this.api, given) : given
      return this.api.call(operation as 'getUser', {params: {[param]: arg} as {id: string}})
    })
    const own = this.flags as Partial<OneCallFlags>
    await call.show(this.out, record as never, {
      json: this.jsonEnabled(),
      output: own.output,
      columns: own.columns,
      wide: own.wide,
    })
    return record
  }
}
