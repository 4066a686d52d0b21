import {Args} from '@oclif/core'
import {outputFlags} from '../../cli/flags.js'
import {OneCallCommand} from '../../cli/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/one-call.ts) shows. */
export default class RoundupsPending extends OneCallCommand<typeof RoundupsPending> {
  static override summary = "show a user's round-ups not yet transferred, and their total"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567']
  static override args = {user: Args.string({description: 'user id', required: true})}
  static override flags = {...outputFlags}
}
