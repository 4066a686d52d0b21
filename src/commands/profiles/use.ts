import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {useProfile} from '../../core/index.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override summary = 'make a profile the current one'
  static override examples = ['<%= config.bin %> <%= command.id %> local']
  static override args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<{currentProfile: string}> {
    await useProfile(this.store, this.args.name)
    this.out.log(`✓ Now using profile "${this.args.name}"`)
    return {currentProfile: this.args.name}
  }
}
