import {refName, type Story, type StorySection} from '../../contract/story.js'
import {ApiError} from '../http/api-error.js'

/**
 * What a story must be beyond its schema before a row of it is written: every reference names a
 * record of the document, each record agrees with the records it names (a transaction's currency
 * is its wallet's, a user has one wallet per currency), and each wallet's ledger, replayed in the
 * document's order, never goes below zero and comes to the balance the wallet states. A story is a
 * file anyone may edit: what it says of history must add up as the sandbox's own would.
 */

export function refused(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_ERROR', `Invalid story: ${path}: ${message}`, {
    field: path,
    issues: [{path, code: 'invalid_story', message}],
  })
}

/** The records of one section, by name ({} where the section is absent). */
export const recordsOf = <S extends StorySection>(story: Story, section: S) =>
  (story[section] ?? {}) as NonNullable<Story[S]>

/** Check that `reference` names a record of `section`; answer its name. */
export function named(story: Story, section: StorySection, reference: string, path: string): string {
  const name = refName(reference)
  if (!Object.hasOwn(recordsOf(story, section), name))
    throw refused(path, `${reference} names no record of ${section}`)
  return name
}

type Buckets = {available: bigint; pending: bigint; reserved: bigint}

/** Each wallet's balance after each ledger entry, in the document's order, by entry index. */
export function replayLedger(story: Story): Buckets[] {
  const wallets = recordsOf(story, 'wallets')
  const transactions = recordsOf(story, 'transactions')
  const running = new Map<string, Buckets>()
  const after: Buckets[] = []
  let last = Number.NEGATIVE_INFINITY
  for (const [i, entry] of (story.ledger_entries ?? []).entries()) {
    const path = `ledger_entries.${i}`
    const wallet = named(story, 'wallets', entry.wallet, `${path}.wallet`)
    const txn = named(story, 'transactions', entry.transaction, `${path}.transaction`)
    const at = Date.parse(entry.at)
    if (at < last) throw refused(`${path}.at`, 'entries are oldest first')
    last = at
    if (transactions[txn]!.currency !== wallets[wallet]!.currency)
      throw refused(
        path,
        `its transaction is in ${transactions[txn]!.currency}, its wallet in ${wallets[wallet]!.currency}`,
      )
    const balance = running.get(wallet) ?? {available: 0n, pending: 0n, reserved: 0n}
    const next = {...balance, [entry.bucket]: balance[entry.bucket] + BigInt(entry.amount)}
    if (next[entry.bucket] < 0n)
      throw refused(path, `it leaves the wallet's ${entry.bucket} balance below zero`)
    running.set(wallet, next)
    after.push(next)
  }
  for (const [name, wallet] of Object.entries(wallets)) {
    const got = running.get(name) ?? {available: 0n, pending: 0n, reserved: 0n}
    for (const bucket of ['available', 'pending', 'reserved'] as const) {
      if (got[bucket] !== BigInt(wallet.balance[bucket]))
        throw refused(
          `wallets.${name}.balance.${bucket}`,
          `its ledger entries come to ${got[bucket]}, not ${wallet.balance[bucket]}: a wallet's balance is the sum of its entries`,
        )
    }
  }
  return after
}

/** Every reference of the document resolves, and what each record names agrees with it. */
// Long: one pass per section, each check beside the field it is about.
export function checkReferences(story: Story): void {
  const wallets = recordsOf(story, 'wallets')
  const perUser = new Set<string>()
  for (const [name, w] of Object.entries(wallets)) {
    const user = named(story, 'users', w.user, `wallets.${name}.user`)
    const key = `${user} ${w.currency}`
    if (perUser.has(key))
      throw refused(`wallets.${name}.currency`, `the user has another ${w.currency} wallet`)
    perUser.add(key)
  }
  for (const [name, pm] of Object.entries(recordsOf(story, 'payment_methods')))
    named(story, 'users', pm.user, `payment_methods.${name}.user`)
  for (const [name, t] of Object.entries(recordsOf(story, 'transactions'))) {
    const path = `transactions.${name}`
    const wallet = named(story, 'wallets', t.wallet, `${path}.wallet`)
    if (wallets[wallet]!.currency !== t.currency)
      throw refused(
        `${path}.currency`,
        `${t.currency} is not its wallet's currency (${wallets[wallet]!.currency})`,
      )
    if (t.from !== undefined) named(story, 'wallets', t.from, `${path}.from`)
    if (t.to !== undefined) named(story, 'wallets', t.to, `${path}.to`)
    if (t.paired_with !== undefined) named(story, 'transactions', t.paired_with, `${path}.paired_with`)
    if (t.refund_of !== undefined) named(story, 'transactions', t.refund_of, `${path}.refund_of`)
    const method = t.payment_method
    if (method?.startsWith('${') === true)
      named(
        story,
        method.startsWith('${wallets.') ? 'wallets' : 'payment_methods',
        method,
        `${path}.payment_method`,
      )
    if (t.status === 'processing' && t.estimated_completion === undefined)
      throw refused(`${path}.estimated_completion`, 'a processing payment needs the time it settles at')
  }
  for (const [name, p] of Object.entries(recordsOf(story, 'bnpl_payments'))) {
    const path = `bnpl_payments.${name}`
    const user = named(story, 'users', p.user, `${path}.user`)
    const wallet = named(story, 'wallets', p.wallet, `${path}.wallet`)
    if (named(story, 'users', wallets[wallet]!.user, `${path}.wallet`) !== user)
      throw refused(`${path}.wallet`, "it is not the user's wallet")
    p.installments.forEach((i, n) => {
      if (i.transaction !== undefined)
        named(story, 'transactions', i.transaction, `${path}.installments.${n}.transaction`)
      if (i.refund_transaction !== undefined)
        named(story, 'transactions', i.refund_transaction, `${path}.installments.${n}.refund_transaction`)
    })
  }
  const settings = new Set<string>()
  for (const [name, s] of Object.entries(recordsOf(story, 'roundup_settings'))) {
    const user = named(story, 'users', s.user, `roundup_settings.${name}.user`)
    if (settings.has(user))
      throw refused(`roundup_settings.${name}.user`, 'the user has round-up settings already')
    settings.add(user)
    if (s.destination !== undefined)
      named(story, 'wallets', s.destination, `roundup_settings.${name}.destination`)
  }
  const purchases = new Set<string>()
  for (const [name, r] of Object.entries(recordsOf(story, 'roundups'))) {
    named(story, 'users', r.user, `roundups.${name}.user`)
    if (purchases.has(r.purchase_id))
      throw refused(`roundups.${name}.purchase_id`, 'used by another round-up')
    purchases.add(r.purchase_id)
  }
}
