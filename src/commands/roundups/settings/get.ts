import {Args} from '@oclif/core'
import {OneCallCommand} from '../../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class RoundupsSettingsGet extends OneCallCommand<typeof RoundupsSettingsGet> {
  static override summary = "show a user's round-up settings (the defaults until they are set)"
  static override examples = ['<%= config.bin %> <%= command.id %> usr_0123456789abcdef01234567 --json']
  static override args = {
    user: Args.string({description: 'user id (usr_…), or the email of one user', required: true}),
  }
}
