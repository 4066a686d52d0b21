import {BNPL_INSTALLMENTS, BNPL_INTERVAL_DAYS} from '../../contract/bnpl.js'
import type {EventName} from '../../contract/events/envelope.js'
import {randomHex} from '../storage/ids.js'

/**
 * One call of a fixture: an operation of the contract with a body and path params in which
 * `${kind.name.field}` refers to a field of what an earlier step returned (the Stripe CLI's fixture
 * idea), as a seed fixture refers to its records: `kind` is the section a seed fixture would list
 * it under (KINDS), `name` the step's `as`.
 */
export interface Step {
  as: string
  op: string
  params?: Record<string, string>
  query?: Record<string, string>
  body?: Record<string, unknown>
}

/** What of the sandbox's settings a fixture's steps depend on. */
export interface FixtureSettings {
  /** How long after it falls due a BNPL instalment is collected. */
  settleAfterSeconds: number
}

/**
 * How the trigger of an event makes its real flow record it. Every fixture starts from a user and
 * their wallet (made, or named by the trigger's overrides, trigger.ts); its steps then run through
 * the API's own operations.
 */
export interface Fixture {
  /** A new wallet is funded first (its initial balance), so that money can leave it. */
  funded?: true
  /** Steps run before the producer (besides the user and wallet every fixture gets). */
  setup?: () => Step[]
  /** Steps that make the event's real producer record it. */
  produce?: (settings: FixtureSettings) => Step[]
  /**
   * The step whose body takes the overrides of TRIGGER_OVERRIDES under their own names (`wallet`:
   * the wallet every fixture starts from); `places` puts a field elsewhere, as `step.field`.
   */
  target: string
  places?: Record<string, string>
  /** Why the flow may run and not record the event, for the error that says so. */
  unrecorded?: string
}

const PEOPLE = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Katherine', 'Johnson'],
  ['Edsger', 'Dijkstra'],
  ['Radia', 'Perlman'],
] as const

export function person(as: string): Step {
  const [first, last] = PEOPLE[Math.floor(Math.random() * PEOPLE.length)]!
  return {
    as,
    op: 'createUser',
    body: {
      email: `${first.toLowerCase()}.${last.toLowerCase()}+${randomHex(3)}@example.test`,
      first_name: first,
      last_name: last,
    },
  }
}

/** The fixtures' wallets are all in the currency of the wallet the event is about. */
export const CURRENCY = '${wallets.wallet.currency}'

export function wallet(
  as: string,
  owner: string,
  currency: string,
  extra: Record<string, unknown> = {},
): Step {
  return {
    as,
    op: 'createWallet',
    body: {userId: `\${users.${owner}.id}`, currency, label: 'payctl trigger', ...extra},
  }
}

const RECIPIENT = (): Step[] => [person('recipient'), wallet('recipientWallet', 'recipient', CURRENCY)]

/** A purchase of 4.35 by a user with round-ups on: a round-up of 0.65 (both round-up events). */
const ROUNDUP = (enable: Record<string, unknown> = {}): Step[] => [
  {
    as: 'roundupSettings',
    op: 'enableRoundups',
    params: {id: '${users.user.id}'},
    body: {currency: CURRENCY, ...enable},
  },
  {
    as: 'roundup',
    op: 'processRoundup',
    body: {
      user_id: '${users.user.id}',
      amount: 4.35,
      merchant_name: 'Blue Bottle Coffee',
      // Unique, so that a trigger about a user who already has round-ups makes a new one.
      transaction_id: `purchase_${randomHex(8)}`,
    },
  },
]

/** A BNPL payment of 240.00 in four instalments, from the user's wallet. */
const BNPL_PAYMENT = (): Step => ({
  as: 'payment',
  op: 'createBnplPayment',
  body: {userId: '${users.user.id}', amount: 24_000, currency: CURRENCY, merchantName: 'Allbirds'},
})

/**
 * Move the sandbox clock on until the first (`upTo` 1) or the last instalment of a payment made now
 * is collected: the clock is the sandbox's, so whatever else falls due by then settles too.
 */
const COLLECT = (upTo: number, s: FixtureSettings): Step => ({
  as: 'clock',
  op: 'sandboxAdvanceClock',
  body: {seconds: (upTo - 1) * BNPL_INTERVAL_DAYS * 86_400 + s.settleAfterSeconds + 1},
})

const CARD = (token: string): Step => ({
  as: 'paymentMethod',
  op: 'addPaymentMethod',
  params: {id: '${users.user.id}'},
  body: {type: 'card', token},
})

/** A card payment into the wallet (a deposit). */
const CARD_DEPOSIT = (token: string): Step[] => [
  CARD(token),
  {
    as: 'transaction',
    op: 'createTransaction',
    body: {
      amount: 2_500,
      currency: CURRENCY,
      method: 'card',
      paymentMethodId: '${payment_methods.paymentMethod.id}',
      destinationWalletId: '${wallets.wallet.id}',
      description: 'payctl webhooks trigger',
    },
  },
]

const TRANSFER_BODY = {amount: 5_000, currency: CURRENCY, description: 'payctl webhooks trigger'}

/** The fixture of every event name of the spec. */
export const FIXTURES: Record<EventName, Fixture> = {
  // The wallet every fixture starts from is this event's record.
  'wallet.created': {target: 'wallet'},
  'transaction.completed': {produce: () => CARD_DEPOSIT('tok_visa'), target: 'transaction'},
  'transaction.failed': {produce: () => CARD_DEPOSIT('tok_card_declined'), target: 'transaction'},
  'transfer.completed': {
    funded: true,
    setup: RECIPIENT,
    produce: () => [
      {
        as: 'transfer',
        op: 'createTransaction',
        body: {
          ...TRANSFER_BODY,
          method: 'wallet',
          sourceWalletId: '${wallets.wallet.id}',
          destinationWalletId: '${wallets.recipientWallet.id}',
        },
      },
    ],
    target: 'transfer',
  },
  'transfer.failed': {
    // A withdrawal to a card that declines it (docs/money.md): the wallet must hold the amount.
    funded: true,
    produce: () => [
      CARD('tok_card_declined'),
      {
        as: 'transfer',
        op: 'createTransaction',
        body: {
          ...TRANSFER_BODY,
          method: 'card',
          sourceWalletId: '${wallets.wallet.id}',
          paymentMethodId: '${payment_methods.paymentMethod.id}',
        },
      },
    ],
    target: 'transfer',
  },
  'roundup.processed': {
    produce: () => ROUNDUP(),
    target: 'roundup',
    places: {transactionId: 'roundup.transaction_id'},
  },
  'roundupsvc.roundup.processed': {
    produce: () => ROUNDUP(),
    target: 'roundup',
    places: {multiplier: 'roundupSettings.multiplier'},
  },
  'roundupsvc.transfer.completed': {
    // The round-up leaves the user's (funded) wallet for the recipient's, completed at once.
    funded: true,
    setup: RECIPIENT,
    produce: () => [
      ...ROUNDUP({destination_account_id: '${wallets.recipientWallet.id}'}),
      {as: 'roundupTransfer', op: 'transferRoundups', params: {id: '${users.user.id}'}},
    ],
    target: 'roundupTransfer',
  },
  'bnplsvc.payment.created': {produce: () => [BNPL_PAYMENT()], target: 'payment'},
  'bnplsvc.payment.completed': {
    // Funded: every instalment is collected, the last six weeks on.
    funded: true,
    produce: (s) => [BNPL_PAYMENT(), COLLECT(BNPL_INSTALLMENTS, s)],
    target: 'payment',
    unrecorded: 'the wallet could not pay every instalment (it must hold the amount)',
  },
  'bnplsvc.payment.failed': {
    // An empty wallet: the first instalment cannot be collected, which fails the payment.
    produce: (s) => [BNPL_PAYMENT(), COLLECT(1, s)],
    target: 'payment',
    unrecorded:
      'the wallet paid the first instalment (a failure needs a wallet short of it: name none, or an emptier one)',
  },
  'walletsvc.payment.completed': {
    funded: true,
    produce: () => [
      {
        as: 'payment',
        op: 'processPayment',
        body: {
          userId: '${users.user.id}',
          amount: 1_250,
          currency: CURRENCY,
          merchantName: 'Blue Bottle Coffee',
        },
      },
    ],
    target: 'payment',
  },
  'walletsvc.p2p.sent': {
    funded: true,
    setup: RECIPIENT,
    produce: () => [
      {
        as: 'p2p',
        op: 'sendP2P',
        body: {
          fromUserId: '${users.user.id}',
          toUserId: '${users.recipient.id}',
          amount: 2_000,
          currency: CURRENCY,
          note: 'Dinner',
        },
      },
    ],
    target: 'p2p',
  },
  'walletsvc.card.created': {
    produce: () => [
      {
        as: 'card',
        op: 'createCard',
        params: {id: '${users.user.id}'},
        body: {walletId: '${wallets.wallet.id}', label: 'Online shopping'},
      },
    ],
    target: 'card',
  },
}

/** The section a seed fixture lists what each operation creates under: the `kind` of a reference. */
export const KINDS: Record<string, string> = {
  createUser: 'users',
  getUser: 'users',
  createWallet: 'wallets',
  getWallet: 'wallets',
  addPaymentMethod: 'payment_methods',
  createTransaction: 'transactions',
  enableRoundups: 'roundup_settings',
  processRoundup: 'purchases',
  transferRoundups: 'roundup_transfers',
  createBnplPayment: 'bnpl_payments',
  processPayment: 'wallet_payments',
  sendP2P: 'p2p_transfers',
  createCard: 'cards',
  sandboxAdvanceClock: 'clock',
}
