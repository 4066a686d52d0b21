import type {EndpointId, EndpointResult} from '../../contract/index.js'
import type {OutputFormat} from '../rendering/list-output.js'
import type {Printer} from '../rendering/printer.js'
import {bnplCard, installmentColumns, schedule} from '../views/bnpl-views.js'
import {
  balanceCard,
  transactionCard,
  userBalanceColumns,
  userBalances,
  userCard,
  walletCard,
} from '../views/resource-views.js'
import {pendingCard, pendingRoundups, roundupColumns, roundupSettingsCard} from '../views/roundups-views.js'
import {attemptLines, deliveryColumns, eventCard} from '../views/webhooks-views.js'

/**
 * The one-call commands: each reads one record with one GET of the service, its one argument
 * naming the record, and prints it. This table is the one place that says which commands they
 * are, which operation each calls and how it prints the answer; the command (a OneCallCommand)
 * and the fast path that bin/run.js takes before loading oclif both print through it, so they
 * print alike. The build generates the fast path's argument matching and answer checks from this
 * table and the endpoint table (scripts/fast-path.ts), and fails if a command here takes a flag
 * the fast path does not understand.
 */

/** The flags of a one-call command, beyond `--profile`, `--debug` and `--no-input`, as `show` reads them. */
export interface OneCallFlags {
  json: boolean
  output?: OutputFormat | undefined
  columns?: string | undefined
  wide?: boolean | undefined
}

/** A command's own flags that the fast path understands (with the global ones: see scripts/fast-path.ts). */
export type OneCallFlag = 'output' | 'columns' | 'wide'

export interface OneCall<K extends EndpointId = EndpointId> {
  /** The GET it calls; the command's one argument fills the one `{placeholder}` of its path. */
  operation: K
  /** What the spinner says while it waits (in a terminal). */
  spin: string
  /** Its own flags, which `show` reads. */
  flags: readonly OneCallFlag[]
  /** Whether its argument names a user, then by id or by email (the full CLI finds an email's id). */
  user?: true
  /** Whether `show` prints a table for most records: the fast path loads the table code while the service answers. */
  tables?: true
  /** Print the record, as a person reads it; under --json the record itself is printed after this. */
  show(out: Printer, record: EndpointResult<K>, flags: OneCallFlags): void | Promise<void>
}

const oneCall = <K extends EndpointId>(c: OneCall<K>): OneCall<K> => c

export const ONE_CALL_COMMANDS = {
  'users:get': oneCall({
    operation: 'getUser',
    user: true,
    spin: 'Fetching user',
    flags: [],
    show: (out, user) => out.card(userCard(user)),
  }),
  'users:balance': oneCall({
    operation: 'getUserBalance',
    user: true,
    tables: true,
    spin: 'Fetching balance',
    flags: [],
    show: async (out, balance) => {
      const balances = userBalances(balance)
      if (balances.length === 0) out.log('No wallets.')
      else await out.table(balances, userBalanceColumns)
    },
  }),
  'wallets:get': oneCall({
    operation: 'getWallet',
    spin: 'Fetching wallet',
    flags: [],
    show: (out, wallet) => out.card(walletCard(wallet)),
  }),
  'wallets:balance': oneCall({
    operation: 'getWalletBalance',
    spin: 'Fetching balance',
    flags: [],
    show: (out, balance) => out.card(balanceCard(balance)),
  }),
  'transactions:get': oneCall({
    operation: 'getTransaction',
    spin: 'Fetching transaction',
    flags: [],
    show: (out, tx) => out.card(transactionCard(tx)),
  }),
  'events:get': oneCall({
    operation: 'getEvent',
    tables: true,
    spin: 'Fetching event',
    flags: [],
    show: async (out, event, {json}) => {
      out.card(eventCard(event))
      if (json) return
      out.log('')
      if (event.deliveries.length === 0) {
        out.log('No deliveries: no webhook or listen session selected this event.')
        return
      }
      await out.table(event.deliveries, deliveryColumns)
      for (const d of event.deliveries) {
        const injected = d.injected === null ? '' : ` (injected: ${d.injected})`
        if (d.attemptLog.length > 0) out.log(`\n${d.id}${injected}\n${attemptLines(d).join('\n')}`)
      }
      const total = event.deliveryCounts?.total ?? event.deliveries.length
      if (total > event.deliveries.length) {
        out.log(`\nShowing the newest ${event.deliveries.length} of ${total} deliveries.`)
      }
    },
  }),
  'bnpl:payments:get': oneCall({
    operation: 'getBnplPayment',
    tables: true,
    spin: 'Fetching BNPL payment',
    flags: [],
    show: async (out, payment) => {
      out.card(bnplCard(payment))
      const instalments = schedule(payment)
      if (instalments.length === 0) return
      out.log('')
      await out.table(instalments, installmentColumns(payment.currency))
    },
  }),
  'roundups:settings:get': oneCall({
    operation: 'getRoundupSettings',
    user: true,
    spin: 'Fetching round-up settings',
    flags: [],
    show: (out, settings) => out.card(roundupSettingsCard(settings)),
  }),
  'roundups:pending': oneCall({
    operation: 'getPendingRoundups',
    user: true,
    tables: true,
    spin: 'Fetching pending round-ups',
    flags: ['output', 'columns', 'wide'],
    show: async (out, pending, flags) => {
      const roundups = pendingRoundups(pending)
      if (await out.printList(pending, 'roundups', roundups, roundupColumns, flags)) return
      out.card(pendingCard(pending))
      if (roundups.length === 0) return
      out.log('')
      await out.table(roundups, roundupColumns)
    },
  }),
} as const satisfies Record<string, OneCall<EndpointId>>

export type OneCallId = keyof typeof ONE_CALL_COMMANDS

/** The entry of a command id (`wallets:get`), if it is a one-call command. */
export function oneCallOf(id: string): OneCall | undefined {
  return Object.hasOwn(ONE_CALL_COMMANDS, id) ? (ONE_CALL_COMMANDS[id as OneCallId] as OneCall) : undefined
}
