import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {currencyFlag, idempotencyKeyFlag, yesFlag} from '../../cli/flags.js'
import {walletCard} from '../../cli/views/resource-views.js'
import type {WalletView} from '../../contract/index.js'
import {parseAmount} from '../../core/index.js'

export default class WalletsCreate extends BaseCommand<typeof WalletsCreate> {
  static override summary = 'create a wallet for a user in one currency'
  static override description =
    'A user has at most one wallet per currency. --initial-balance is honoured by the sandbox only; give it in the smallest unit (1000 = 10.00 USD) or as a decimal with the currency (10.00USD).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --currency USD',
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567 --currency EUR --label "Travel" --initial-balance 250.00EUR --json',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'id of the user who owns the wallet'}),
    currency: currencyFlag(),
    label: Flags.string({summary: 'human-readable label, at most 50 characters'}),
    'initial-balance': Flags.string({summary: 'opening balance (sandbox only): 1000 or 10.00USD'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<WalletView> {
    const f = this.flags
    this.questions.requireFlags({user: f.user, currency: f.currency})
    const userId = f.user ?? (await this.questions.ask('user', 'User id'))
    const currency = (
      f.currency ?? (await this.questions.ask('currency', 'Currency', {default: 'USD'}))
    ).toUpperCase()
    const initialBalance = f['initial-balance']
      ? parseAmount(f['initial-balance'], currency).amount
      : undefined
    await this.confirmProduction('create a wallet', f.yes)
    const wallet = await this.out.spin('Creating wallet', () =>
      this.api.call('createWallet', {
        body: {
          userId,
          currency,
          ...(f.label === undefined ? {} : {label: f.label}),
          ...(initialBalance === undefined ? {} : {initialBalance}),
        },
        idempotencyKey: f['idempotency-key'],
      }),
    )
    this.out.created('Created wallet', wallet.id, walletCard(wallet))
    return wallet
  }
}
