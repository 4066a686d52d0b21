import {Args} from '@oclif/core'
import {OneCallCommand} from '../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class WalletsBalance extends OneCallCommand<typeof WalletsBalance> {
  static override summary = "show a wallet's balance: available, pending, reserved and total"
  static override examples = ['<%= config.bin %> <%= command.id %> wal_… --json']
  static override args = {id: Args.string({description: 'wallet id', required: true})}
}
