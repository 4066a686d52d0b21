import {Args, Flags} from '@oclif/core'
import {amountInCurrencyOf} from '../../cli/amounts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {walletCard} from '../../cli/views/resource-views.js'
import {type EndpointBody, WALLET_STATUSES, type Wallet} from '../../contract/index.js'
import {type Exact, usageError} from '../../core/index.js'

export default class WalletsUpdate extends BaseCommand<typeof WalletsUpdate> {
  static override summary = "change a wallet's label, status or limits"
  static override description =
    'Limits take the smallest unit (100000) or a decimal with the currency (1000.00USD).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> wal_… --label "Savings"',
    '<%= config.bin %> <%= command.id %> wal_… --status frozen',
    '<%= config.bin %> <%= command.id %> wal_… --limit-transaction 500.00USD --limit-daily 2000.00USD',
  ]
  static override args = {id: Args.string({description: 'wallet id', required: true})}
  static override flags = {
    label: Flags.string({summary: 'new label, at most 50 characters'}),
    status: Flags.option({options: WALLET_STATUSES})({summary: 'new status'}),
    'limit-transaction': Flags.string({summary: 'largest single amount'}),
    'limit-daily': Flags.string({summary: 'largest volume a day'}),
    'limit-monthly': Flags.string({summary: 'largest volume a month'}),
    yes: yesFlag,
  }

  async run(): Promise<Wallet> {
    const f = this.flags
    let currency: Promise<string> | undefined
    const currencyOf = () => {
      currency ??= this.api.call('getWallet', {params: {id: this.args.id}}).then((w) => w.currency)
      return currency
    }
    const limit = (text: string | undefined) =>
      text === undefined ? undefined : amountInCurrencyOf(text, currencyOf)
    const limits = {
      transaction: await limit(f['limit-transaction']),
      daily: await limit(f['limit-daily']),
      monthly: await limit(f['limit-monthly']),
    }
    const input: Exact<EndpointBody<'updateWallet'>> = {
      ...(f.label === undefined ? {} : {label: f.label}),
      ...(f.status === undefined ? {} : {status: f.status}),
      ...(Object.values(limits).some((v) => v !== undefined)
        ? {limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined))}
        : {}),
    }
    if (Object.keys(input).length === 0) {
      throw usageError('nothing to change: pass --label, --status or a --limit-* flag', 'MISSING_FLAG')
    }
    await this.confirmProduction(`update wallet ${this.args.id}`, f.yes)
    const wallet = await this.out.spin('Updating wallet', () =>
      this.api.call('updateWallet', {params: {id: this.args.id}, body: input}),
    )
    this.out.created('Updated wallet', wallet.id, walletCard(wallet))
    return wallet
  }
}
