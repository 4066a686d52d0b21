import {Flags} from '@oclif/core'
import {moneyFrom} from '../../cli/amounts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {moneyFlags} from '../../cli/flags.js'
import {prequalificationCard} from '../../cli/views/bnpl-views.js'
import type {Loose, Prequalification} from '../../contract/index.js'

export default class BnplPrequalify extends BaseCommand<typeof BnplPrequalify> {
  static override summary = 'pre-qualify a user for buy now, pay later: a decision and a limit'
  static override description =
    'The sandbox approves up to 1,000.00 USD (at its rates in other fiat currencies) minus what the user still owes on BNPL, from 10.00 USD; a user whose email carries +decline (ada+decline@example.test) is always declined. A decline is an answer, not an error: the exit code is 0.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --amount 240.00USD',
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --currency EUR --json',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user id'}),
    ...moneyFlags(
      'purchase to check, with its currency (240.00USD) or in the smallest unit (24000) with --currency; default: only the limit',
    ),
  }

  async run(): Promise<Loose<Prequalification>> {
    const f = this.flags
    const userId = f.user ?? (await this.questions.ask('user', 'User id'))
    // Without an amount, only the limit is asked for: in USD unless --currency says otherwise.
    const {amount, currency} =
      f.amount === undefined
        ? {amount: undefined, currency: f.currency ?? 'USD'}
        : await moneyFrom(f, this.questions, '24000 or 240.00USD')
    const result = await this.out.spin('Pre-qualifying', () =>
      this.api.call('prequalifyBnpl', {body: {userId, currency, ...(amount === undefined ? {} : {amount})}}),
    )
    this.out.card(prequalificationCard(result))
    return result
  }
}
