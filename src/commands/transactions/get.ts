import {Args} from '@oclif/core'
import {OneCallCommand} from '../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class TransactionsGet extends OneCallCommand<typeof TransactionsGet> {
  static override summary = 'show a transaction'
  static override examples = ['<%= config.bin %> <%= command.id %> txn_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'transaction id', required: true})}
}
