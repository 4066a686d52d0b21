import {Args, Flags} from '@oclif/core'
import {OperatorCommand} from '../../../cli/local-sandbox/operator-command.js'
import type {NewPartner} from '../../../contract/index.js'
import {
  checkProfileName,
  PayctlError,
  saveLocalProfile,
  storedProfile,
  usageError,
} from '../../../core/index.js'

type Created = {
  name: string
  partnerId: string
  profile: string
  apiKey: string
  apiSecret: string
  secretKey: string
  baseUrl: string
}

export default class SandboxPartnersCreate extends OperatorCommand<typeof SandboxPartnersCreate> {
  static override summary =
    'add a partner to the running sandbox, with fresh credentials and a profile of its own'
  static override description =
    `The new partner is isolated from every other in everything (records, webhooks, tokens, rate limits, its clock). Its credentials are written to a profile named NAME (--profile chooses another); under --json they are printed too, for a CI job to export. Only the sandbox's operator may do this: the command acts as the profile \`sandbox start\` wrote (\`local\`), or PAYCTL_PROFILE.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> alice',
    '<%= config.bin %> <%= command.id %> ci-$CI_JOB_ID --json',
    '<%= config.bin %> <%= command.id %> team --profile team-sandbox',
  ]
  static override args = {
    name: Args.string({description: 'the partner’s name (letters, digits, _ and -)', required: true}),
  }
  static override flags = {
    profile: Flags.string({
      char: 'p',
      summary: 'the profile to write its credentials to (default: NAME)',
      parse: async (value) => checkProfileName(value),
    }),
  }

  async run(): Promise<Created> {
    const name = this.partnerName(this.args.name)
    const profile = this.flags.profile ?? name
    if (storedProfile(this.store.read(), profile) !== undefined) {
      throw usageError(
        `a profile named ${profile} exists already: choose another with --profile`,
        'PROFILE_EXISTS',
        {
          flag: '--profile',
          value: profile,
        },
      )
    }
    this.requireLocal('sandbox partners')
    const created: NewPartner = await this.out
      .spin(`Creating partner ${name}`, () => this.api.call('createPartner', {body: {name}}))
      .catch((err: unknown) => this.operatorOnly(err))
    const {baseUrl} = this.profile
    await saveLocalProfile(this.store, profile, baseUrl, {
      variant: 'A',
      apiKey: created.apiKey,
      apiSecret: created.apiSecret,
      partnerId: created.partnerId,
    }).catch((err: unknown) => {
      throw new PayctlError({
        kind: 'config',
        code: 'PROFILE_NOT_SAVED',
        message: `partner ${name} was created, but its profile could not be written: ${(err as Error).message}`,
        suggestions: [`Try: payctl sandbox partners delete ${name}, then again`],
      })
    })
    if (
      this.out.done(`Created partner ${name}; its credentials are in profile ${profile}`, created.partnerId)
    )
      this.out.log(`  Act as it: payctl … --profile ${profile}   or   export PAYCTL_PROFILE=${profile}`)
    return {
      name,
      partnerId: created.partnerId,
      profile,
      apiKey: created.apiKey,
      apiSecret: created.apiSecret,
      secretKey: created.secretKey,
      baseUrl,
    }
  }
}
