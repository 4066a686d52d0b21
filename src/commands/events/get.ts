import {Args} from '@oclif/core'
import {OneCallCommand} from '../../cli/fast-path/one-call-command.js'

/** Prints what its entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) shows. */
export default class EventsGet extends OneCallCommand<typeof EventsGet> {
  static override summary = 'show an event with each of its deliveries and their attempts'
  static override examples = ['<%= config.bin %> <%= command.id %> evt_0123456789abcdef01234567 --json']
  static override args = {id: Args.string({description: 'event id', required: true})}
}
