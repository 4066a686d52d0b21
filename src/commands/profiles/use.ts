import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {PayctlError} from '../../core/index.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override summary = 'make a profile the current one'
  static override examples = ['<%= config.bin %> <%= command.id %> local']
  static override args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<{currentProfile: string}> {
    const {name} = this.args
    await this.store.update((file) => {
      if (!file.profiles[name]) {
        throw new PayctlError({
          kind: 'usage',
          code: 'PROFILE_NOT_FOUND',
          message: `no profile named "${name}"`,
          details: {profiles: Object.keys(file.profiles)},
          suggestions: [`Try: payctl auth login --profile ${name} --env local`],
        })
      }
      file.currentProfile = name
    })
    this.log(`✓ Now using profile "${name}"`)
    return {currentProfile: name}
  }
}
