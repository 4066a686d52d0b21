import {Args} from '@oclif/core'
import {OneCallCommand} from '../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class UsersBalance extends OneCallCommand<typeof UsersBalance> {
  static override summary = "show a user's balance in every currency they hold"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_… --json']
  static override args = {
    id: Args.string({description: 'user id (usr_…), or the email of one user', required: true}),
  }
}
