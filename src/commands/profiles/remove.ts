import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {PayctlError} from '../../core/index.js'

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static override summary = 'delete a profile and its stored credentials from the profile file'
  static override description =
    'Does not revoke anything with the service; run `payctl auth logout` first for that.'
  static override examples = ['<%= config.bin %> <%= command.id %> staging']
  static override args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<{removed: string}> {
    const {name} = this.args
    await this.store.update((file) => {
      if (!file.profiles[name]) {
        throw new PayctlError({
          kind: 'usage',
          code: 'PROFILE_NOT_FOUND',
          message: `no profile named "${name}"`,
          details: {profiles: Object.keys(file.profiles)},
        })
      }
      delete file.profiles[name]
      if (file.currentProfile === name) file.currentProfile = undefined
    })
    this.log(`✓ Removed profile "${name}"`)
    return {removed: name}
  }
}
