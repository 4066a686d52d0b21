import {Flags} from '@oclif/core'
import {currencyFrom, moneyFrom} from '../../cli/amounts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {parseDuration} from '../../cli/duration.js'
import {idempotencyKeyFlag, metadataFlag, metadataFrom, moneyFlags, yesFlag} from '../../cli/flags.js'
import {transactionCard} from '../../cli/views/resource-views.js'
import {
  missingParties,
  PAYMENT_METHODS,
  type Parties,
  type PartyField,
  partiesProblem,
  type TransactionView,
} from '../../contract/index.js'
import {isFinal, PayctlError, usageError, waitForFinal} from '../../core/index.js'

export default class TransactionsCreate extends BaseCommand<typeof TransactionsCreate> {
  static override summary =
    'move money: a deposit into a wallet, a withdrawal out of one, or a transfer between two'
  static override description =
    `--method card|apple_pay|google_pay|ach|wire|crypto with --to WALLET is a deposit, with --from WALLET a withdrawal; --method wallet with --from and --to is a wallet-to-wallet transfer.
card and ach need --payment-method (in the sandbox: pm_card_visa, pm_card_declined, pm_card_insufficient_funds, pm_ach_success, pm_ach_returned).
Amounts are in the smallest unit (1234 = 12.34 USD) unless the currency is appended (12.34USD) or --decimal is given; an amount without its currency needs --currency (asked for in a terminal).
ach, wire and crypto answer "processing" and settle later: --wait follows them to the end.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --method card --amount 25.00USD --to wal_… --payment-method pm_card_visa',
    '<%= config.bin %> <%= command.id %> --method ach --amount 10000 --currency USD --to wal_… --payment-method pm_ach_success --wait',
    '<%= config.bin %> <%= command.id %> --method wallet --amount 5.00 --decimal --currency EUR --from wal_a --to wal_b --metadata order=42',
  ]
  static override flags = {
    method: Flags.option({options: PAYMENT_METHODS, char: 'm'})({summary: 'payment method type'}),
    ...moneyFlags(),
    from: Flags.string({summary: 'wallet to debit (sourceWalletId)'}),
    to: Flags.string({summary: 'wallet to credit (destinationWalletId)'}),
    'payment-method': Flags.string({summary: 'saved payment method id (paymentMethodId)'}),
    description: Flags.string({summary: 'free text'}),
    metadata: metadataFlag,
    'idempotency-key': idempotencyKeyFlag,
    wait: Flags.boolean({summary: 'follow an asynchronous payment until it completes or fails'}),
    timeout: Flags.string({summary: 'how long --wait waits', default: '5m'}),
    yes: yesFlag,
  }

  async run(): Promise<TransactionView> {
    const f = this.flags
    this.questions.requireFlags({
      method: f.method,
      amount: f.amount,
      currency: currencyFrom(f.currency, f.amount),
      ...(f.method === undefined ? {} : missingPartyFlags(f.method, f)),
    })
    const method: string =
      f.method ?? (await this.questions.ask('method', `Method (${PAYMENT_METHODS.join(', ')})`))
    if (!(PAYMENT_METHODS as readonly string[]).includes(method)) {
      throw usageError(`--method must be one of ${PAYMENT_METHODS.join(', ')}`, 'INVALID_FLAG')
    }
    const {amount, currency, text: amountText} = await moneyFrom(f, this.questions, '1234 or 12.34USD')
    checkParties(method, f)
    const timeoutMs = parseDuration(f.timeout, 'timeout') * 1000
    await this.confirmProduction(`move ${amountText} ${f.decimal ? currency : ''}`.trim(), f.yes)

    let tx = await this.out.spin('Creating transaction', () =>
      this.api.call('createTransaction', {
        body: {
          amount,
          currency,
          method: method as (typeof PAYMENT_METHODS)[number],
          ...(f['payment-method'] ? {paymentMethodId: f['payment-method']} : {}),
          ...(f.from ? {sourceWalletId: f.from} : {}),
          ...(f.to ? {destinationWalletId: f.to} : {}),
          ...(f.description ? {description: f.description} : {}),
          ...(f.metadata ? {metadata: metadataFrom(f.metadata)} : {}),
        },
        idempotencyKey: f['idempotency-key'],
      }),
    )
    if (f.wait && !isFinal(tx)) {
      // The money has moved: Ctrl-C while waiting must not lose the id, which is only on the spinner.
      this.interruptNote = {
        text: `Transaction ${tx.id} was created (${tx.status}) and goes on without you. Follow it: payctl transactions get ${tx.id}`,
        audit: `interrupted while waiting for ${tx.id} (${tx.status}) to settle`,
      }
      tx = await this.out.spin(`Waiting for ${tx.id} to settle`, () =>
        waitForFinal(this.api, tx, {timeoutMs}),
      )
      this.interruptNote = undefined
    }
    this.out.created(`Transaction ${tx.status}:`, tx.id, transactionCard(tx))
    if (f.wait && tx.status === 'failed') {
      throw new PayctlError({
        kind: 'api',
        code: 'TRANSACTION_FAILED',
        message: `transaction ${tx.id} failed: ${tx.failureReason ?? 'no reason given'}`,
        details: {id: tx.id, failureReason: tx.failureReason},
      })
    }
    return tx
  }
}

/** The flag that gives each party of a transaction. */
const PARTY_FLAGS: Record<PartyField, string> = {
  sourceWalletId: 'from',
  destinationWalletId: 'to',
  paymentMethodId: 'payment-method',
}

type PartyFlags = {from?: string | undefined; to?: string | undefined; 'payment-method'?: string | undefined}

function partiesOf(method: string, f: PartyFlags): Parties {
  return {
    method,
    sourceWalletId: f.from || undefined,
    destinationWalletId: f.to || undefined,
    paymentMethodId: f['payment-method'] || undefined,
  }
}

/** The flags `method` requires beyond the others that are missing (the contract's rules). */
function missingPartyFlags(method: string, f: PartyFlags): Record<string, undefined> {
  return Object.fromEntries(
    missingParties(partiesOf(method, f)).map((field) => [PARTY_FLAGS[field], undefined]),
  )
}

/** The contract's rules of the parties, checked before anything is sent so the error names the flag. */
function checkParties(method: string, f: PartyFlags): void {
  const problem = partiesProblem(partiesOf(method, f), (field) => `--${PARTY_FLAGS[field]}`)
  if (problem === undefined) return
  const flag = `--${PARTY_FLAGS[problem.field]}`
  throw usageError(
    `${flag}: ${problem.reason}`,
    problem.kind === 'missing' ? 'MISSING_FLAG' : 'INVALID_FLAG',
    {
      flag,
    },
  )
}
