import {Args} from '@oclif/core'
import {yesFlag} from '../../../cli/flags.js'
import {OperatorCommand} from '../../../cli/local-sandbox/operator-command.js'
import {PayctlError} from '../../../core/index.js'

export default class SandboxPartnersDelete extends OperatorCommand<typeof SandboxPartnersDelete> {
  static override summary =
    'delete a partner of the running sandbox: every record of it, its tokens and listen sessions'
  static override description =
    "No other partner is touched. The profiles holding its credentials are removed; the current profile cannot be one of them (switch first). Only the sandbox's operator may do this, and the operator itself cannot be deleted."
  static override examples = [
    '<%= config.bin %> <%= command.id %> alice',
    '<%= config.bin %> <%= command.id %> ci-42 --yes',
  ]
  static override args = {name: Args.string({description: 'the partner’s name', required: true})}
  static override flags = {yes: yesFlag}

  protected override profileToActOn(): string | undefined {
    return this.flags?.profile ?? super.profileToActOn()
  }

  async run(): Promise<{name: string; partnerId: string; deleted: true; profilesRemoved: string[]}> {
    const name = this.partnerName(this.args.name)
    this.requireLocal('sandbox partners')
    const {data} = await this.api.call('listPartners').catch((err: unknown) => this.operatorOnly(err))
    const partner = data.find((p) => p.name === name)
    const profiles = partner === undefined ? [] : this.profilesOf(partner.partnerId)
    const current = this.store.read().currentProfile
    if (current !== undefined && profiles.includes(current)) {
      throw new PayctlError({
        kind: 'usage',
        code: 'PROFILE_IN_USE',
        message: `profile ${current} is the current profile and holds partner ${name}'s credentials: nothing was deleted`,
        suggestions: [`Switch first: payctl profiles use ${this.profile.name}`],
      })
    }
    if (!this.flags.yes && this.interactive)
      await this.questions.confirm(`Delete partner ${name} and every record of it?`)
    const deleted = await this.out.spin(`Deleting partner ${name}`, () =>
      this.api.call('deletePartner', {params: {name}}),
    )
    await this.store.update((file) => {
      for (const profile of profiles) delete file.profiles[profile]
    })
    this.out.done(
      `Deleted partner ${name}${profiles.length === 0 ? '' : ` and its profile${profiles.length > 1 ? 's' : ''} ${profiles.join(', ')}`}`,
      deleted.partnerId,
    )
    return {...deleted, profilesRemoved: profiles}
  }
}
