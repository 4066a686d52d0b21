import {Args} from '@oclif/core'
import {OneCallCommand} from '../../cli/fast-path/one-call-command.js'
import {outputFlags} from '../../cli/flags.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class RoundupsPending extends OneCallCommand<typeof RoundupsPending> {
  static override summary = "show a user's round-ups not yet transferred, and their total"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567']
  static override args = {
    user: Args.string({description: 'user id (usr_…), or the email of one user', required: true}),
  }
  static override flags = {...outputFlags}
}
