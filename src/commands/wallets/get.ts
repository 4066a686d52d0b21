import {Args} from '@oclif/core'
import {OneCallCommand} from '../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class WalletsGet extends OneCallCommand<typeof WalletsGet> {
  static override summary = 'show a wallet with its balance and limits'
  static override examples = ['<%= config.bin %> <%= command.id %> wal_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'wallet id', required: true})}
}
