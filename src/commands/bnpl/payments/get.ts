import {Args} from '@oclif/core'
import {OneCallCommand} from '../../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class BnplPaymentsGet extends OneCallCommand<typeof BnplPaymentsGet> {
  static override summary = 'show a BNPL payment and its instalment schedule'
  static override examples = ['<%= config.bin %> <%= command.id %> bnpl_0123456789abcdef01234567']
  static override args = {id: Args.string({description: 'BNPL payment id', required: true})}
}
