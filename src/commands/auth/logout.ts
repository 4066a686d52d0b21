import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {logout} from '../../core/index.js'

export default class AuthLogout extends BaseCommand<typeof AuthLogout> {
  static override summary = 'revoke the access token with the service, then forget the credentials locally'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile staging',
    '<%= config.bin %> <%= command.id %> --everywhere',
  ]
  static override flags = {
    everywhere: Flags.boolean({
      summary:
        'first revoke every token of the partner (all access tokens and minted JWTs, wherever they went)',
    }),
  }

  async run(): Promise<{profile: string; revoked: boolean}> {
    const name = this.profile.name
    if (!this.profile.stored)
      this.out.warn(`profile "${name}" is not in the profile file; nothing is stored to forget`)
    const everywhere = this.flags.everywhere
    const {revoked} = await this.out.spin('Logging out', () => logout(this.store, this.api, {everywhere}))
    const what = everywhere ? ' (every token of the partner revoked)' : ' (access token revoked)'
    this.out.log(`✓ Logged out of profile "${name}"${revoked ? what : ''}`)
    return {profile: name, revoked}
  }
}
