import {Args} from '@oclif/core'
import {OneCallCommand} from '../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class UsersGet extends OneCallCommand<typeof UsersGet> {
  static override summary = 'show a user'
  static override examples = [
    '<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --json',
    '<%= config.bin %> <%= command.id %> ada@example.test',
  ]
  static override args = {
    id: Args.string({description: 'user id (usr_…), or the email of one user', required: true}),
  }
}
