import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {
  checkRoundupCurrency,
  checkRoundupDecimals,
  majorFlag,
  roundupCurrency,
} from '../../cli/roundups-flags.js'
import {roundupCard} from '../../cli/views/roundups-views.js'
import type {Loose, Roundup} from '../../contract/index.js'

export default class RoundupsProcess extends BaseCommand<typeof RoundupsProcess> {
  static override summary = "process a user's purchase: its round-up, once per transaction id"
  static override description =
    'The amount is in major units of the round-up currency (4.35 is 4.35 USD), with no more decimals than the currency has (4.355 is refused before it is sent). The round-up is the spare change to the next whole unit (100 yen for JPY), times the multiplier, capped; a whole amount or a user with round-ups off yields 0. The same --transaction-id again answers the first result.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --amount 4.35 --merchant "Blue Bottle Coffee" --transaction-id pos_1001',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'user id'}),
    amount: Flags.string({char: 'a', summary: 'the purchase, in major units (4.35, or 4.35USD)'}),
    merchant: Flags.string({summary: 'merchant name'}),
    'transaction-id': Flags.string({
      summary: 'your id of the purchase: processing it again yields the same round-up',
    }),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<Loose<Roundup>> {
    const f = this.flags
    this.questions.requireFlags({
      user: f.user,
      amount: f.amount,
      merchant: f.merchant,
      'transaction-id': f['transaction-id'],
    })
    const user = f.user ?? (await this.questions.ask('user', 'User id'))
    const amount = majorFlag(
      f.amount ?? (await this.questions.ask('amount', 'Purchase amount, e.g. 4.35')),
      'amount',
    )
    const lookup = () => roundupCurrency(this.api, user)
    await checkRoundupCurrency({flag: 'amount', currency: amount.currency}, lookup)
    await checkRoundupDecimals('amount', amount, {lookup})
    const merchant = f.merchant ?? (await this.questions.ask('merchant', 'Merchant name'))
    const transactionId =
      f['transaction-id'] ?? (await this.questions.ask('transaction-id', 'Transaction id of the purchase'))
    await this.confirmProduction(`process a purchase of ${user}`, f.yes)
    const roundup = await this.out.spin('Processing purchase', () =>
      this.api.call('processRoundup', {
        body: {user_id: user, amount: amount.value, merchant_name: merchant, transaction_id: transactionId},
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created(
      roundup.duplicate === true ? 'Already processed: round-up' : 'Round-up',
      roundup.id,
      roundupCard(roundup),
      roundup,
    )
    return roundup
  }
}
