import type {Command} from '@oclif/core'
import {PARTNER_NAME_RULE, PartnerName} from '../../contract/index.js'
import {PayctlError, storedProfile, usageError} from '../../core/index.js'
import {BaseCommand} from '../base-command.js'
import {operatorProfile} from './sandbox-process.js'

/**
 * A command of the sandbox's operator (`sandbox partners …`): it acts as the profile `sandbox start`
 * wrote for the sandbox of this config dir (`local` by default), whatever the current profile is;
 * PAYCTL_PROFILE, or --profile where the command takes it that way, chooses another.
 */
export abstract class OperatorCommand<T extends typeof Command> extends BaseCommand<T> {
  protected override profileToActOn(): string | undefined {
    if (this.env.PAYCTL_PROFILE !== undefined && this.env.PAYCTL_PROFILE !== '') return undefined
    return operatorProfile(this.runtime.configDir)
  }

  /** A partner's name as given, checked before anything is sent. */
  protected partnerName(name: string): string {
    if (!PartnerName.safeParse(name).success) {
      throw usageError(
        `partner name ${JSON.stringify(name)} is not one: use ${PARTNER_NAME_RULE}`,
        'INVALID_ARGUMENT',
        {argument: 'NAME', value: name},
      )
    }
    return name
  }

  /** The profiles of the profile file that hold the partner's credentials for this sandbox. */
  protected profilesOf(partnerId: string): string[] {
    const file = this.store.read()
    return Object.keys(file.profiles).filter((name) => {
      const p = storedProfile(file, name)
      return p?.baseUrl === this.profile.baseUrl && p.auth?.partnerId === partnerId
    })
  }

  /** A refusal of the service, with the way to act as the operator. */
  protected operatorOnly(err: unknown): never {
    if (err instanceof PayctlError && err.code === 'INSUFFICIENT_PERMISSIONS') {
      err.suggestions.unshift(
        `Only the operator (the partner the sandbox started with) manages partners: act as its profile, ${operatorProfile(this.runtime.configDir)} (unset PAYCTL_PROFILE)`,
      )
    }
    throw err
  }
}
