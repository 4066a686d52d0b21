import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {removeProfile} from '../../core/index.js'

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static override summary = 'delete a profile and its stored credentials from the profile file'
  static override description =
    'Does not revoke anything with the service; run `payctl auth logout` first for that.'
  static override examples = ['<%= config.bin %> <%= command.id %> staging']
  static override args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<{removed: string}> {
    await removeProfile(this.store, this.args.name)
    this.out.log(`✓ Removed profile "${this.args.name}"`)
    return {removed: this.args.name}
  }
}
