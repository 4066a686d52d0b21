import {renameSync, rmSync, writeFileSync} from 'node:fs'
import {stringify} from 'yaml'
import type {PayctlClient} from '../client.js'
import {PayctlError} from '../errors.js'

/**
 * The caller's partner as a fixture that `payctl seed` recreates in a fresh sandbox
 * (docs/seed.md#exporting-a-state): what the API can create again is written as records; what it
 * cannot is named in comments at the top, never silently left out.
 */

type Loose = Record<string, unknown>

/** The sandbox's test token that makes a saved payment method like this one, by type and last 4. */
const TOKENS: Record<string, string> = {
  'card:4242': 'tok_visa',
  'card:4444': 'tok_mastercard',
  'card:0002': 'tok_card_declined',
  'card:9995': 'tok_card_insufficient_funds',
  'apple_pay:4242': 'tok_apple_pay',
  'google_pay:4242': 'tok_google_pay',
  'ach:6789': 'tok_ach_success',
  'ach:1116': 'tok_ach_returned',
  'wire:7890': 'tok_wire_bank',
  'crypto:c0de': 'tok_crypto_wallet',
}

/** Every page of a list, as one array. */
async function all(page: (cursor: string | undefined) => Promise<{items: Loose[]; next: string | null}>) {
  const items: Loose[] = []
  let cursor: string | undefined
  do {
    const got = await page(cursor)
    items.push(...got.items)
    cursor = got.next ?? undefined
  } while (cursor !== undefined)
  return items
}

const text = (v: unknown): string => (typeof v === 'string' ? v : String(v ?? ''))

/** A record name for each user: its email's letters, in the order of their emails (stable across sandboxes). */
function namesOf(users: Loose[]): Map<string, string> {
  const names = new Map<string, string>()
  const taken = new Set<string>()
  for (const user of users) {
    const base =
      text(user.email)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '') || 'user'
    let name = base
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`
    taken.add(name)
    names.set(text(user.id), name)
  }
  return names
}

// Long: one section after another, each read through the API and written as the fixture has it.
export async function exportFixture(client: PayctlClient): Promise<string> {
  const users = (
    await all(async (cursor) => {
      const r = (await client.call('listUsers', {query: {limit: 100, ...(cursor ? {cursor} : {})}})) as Loose
      return {items: r.users as Loose[], next: (r.nextCursor as string | null) ?? null}
    })
  ).sort((a, b) => text(a.email).localeCompare(text(b.email)) || text(a.id).localeCompare(text(b.id)))
  const names = namesOf(users)
  const ref = (id: unknown) => `\${users.${names.get(text(id))}.id}`
  const fixture: Record<string, Record<string, Loose>> = {users: {}, wallets: {}, payment_methods: {}}
  const notRecreated: string[] = []
  const walletNames = new Map<string, string>()
  for (const user of users) {
    const name = names.get(text(user.id))!
    fixture.users![name] = {
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      ...(user.external_id ? {external_id: user.external_id} : {}),
    }
    const wallets = await all(async (cursor) => {
      const r = (await client.call('listWallets', {
        query: {userId: text(user.id), limit: 100, ...(cursor ? {cursor} : {})},
      })) as Loose
      return {items: r.wallets as Loose[], next: (r.nextCursor as string | null) ?? null}
    })
    for (const wallet of wallets.sort((a, b) => text(a.currency).localeCompare(text(b.currency)))) {
      let walletName = `${name}_${text(wallet.currency).toLowerCase()}`
      for (let n = 2; fixture.wallets![walletName] !== undefined; n++)
        walletName = `${name}_${text(wallet.currency).toLowerCase()}_${n}`
      walletNames.set(text(wallet.id), walletName)
      const balance = (wallet.balance as Loose | undefined)?.available
      fixture.wallets![walletName] = {
        user: ref(user.id),
        currency: wallet.currency,
        ...(wallet.label ? {label: wallet.label} : {}),
        initial_balance: text(balance ?? 0),
      }
    }
    const methods = await all(async (cursor) => {
      const r = (await client.call('listPaymentMethods', {
        params: {id: text(user.id)},
        query: {limit: 100, ...(cursor ? {cursor} : {})},
      })) as Loose
      return {items: r.paymentMethods as Loose[], next: (r.nextCursor as string | null) ?? null}
    })
    methods.forEach((method, i) => {
      const token = TOKENS[`${text(method.type)}:${text(method.last4)}`]
      if (token === undefined) {
        notRecreated.push(
          `payment method ${text(method.id)} of ${name} (${text(method.type)} …${text(method.last4)}): no test token makes it`,
        )
        return
      }
      fixture.payment_methods![`${name}_pm${i + 1}`] = {user: ref(user.id), type: method.type, token}
    })
  }
  // After every wallet is named: a round-up destination may be another user's wallet.
  for (const user of users) {
    await exportRoundups(client, user, ref, walletNames, fixture, notRecreated, names.get(text(user.id))!)
  }
  await exportWebhooks(client, fixture, notRecreated)
  await exportBnpl(client, ref, walletNames, fixture, notRecreated)
  notRecreated.push(
    'transactions, ledger entries and events: their effect is in the wallets’ balances (initial_balance), their history is not recreated',
    'bank accounts: connecting one takes a link token the fixture cannot hold',
  )
  for (const section of Object.keys(fixture))
    if (Object.keys(fixture[section]!).length === 0) delete fixture[section]
  const header = [
    '# Exported by payctl seed export: `payctl seed FILE` recreates these records in a fresh sandbox.',
    '# Ids and times are new there. Not recreated, by design or because the API cannot:',
    ...notRecreated.sort().map((line) => `#   - ${line}`),
  ]
  return `${header.join('\n')}\n${stringify({version: 1, name: 'export', ...fixture}, {lineWidth: 0})}`
}

async function exportRoundups(
  client: PayctlClient,
  user: Loose,
  ref: (id: unknown) => string,
  walletNames: Map<string, string>,
  fixture: Record<string, Record<string, Loose>>,
  notRecreated: string[],
  name: string,
): Promise<void> {
  const s = (await client.call('getRoundupSettings', {params: {id: text(user.id)}})) as Loose
  if (s.created_at === null || s.created_at === undefined) return
  const destination = s.destination_account_id === null ? undefined : text(s.destination_account_id)
  const wallet = destination === undefined ? undefined : walletNames.get(destination)
  if (destination !== undefined && wallet === undefined) {
    notRecreated.push(
      `round-up destination ${destination} of ${name}: a bank account, which is not recreated`,
    )
  }
  fixture.roundup_settings ??= {}
  fixture.roundup_settings[name] = {
    user: ref(user.id),
    enabled: s.enabled,
    multiplier: s.multiplier,
    max_roundup_amount: text(s.max_roundup_amount),
    currency: s.currency,
    ...(wallet === undefined ? {} : {destination_account_id: `\${wallets.${wallet}.id}`}),
  }
}

async function exportWebhooks(
  client: PayctlClient,
  fixture: Record<string, Record<string, Loose>>,
  notRecreated: string[],
): Promise<void> {
  const {webhooks} = (await client.call('listWebhooks')) as {webhooks: Loose[]}
  if (webhooks.length === 0) return
  fixture.webhooks = {}
  const sorted = [...webhooks].sort((a, b) => text(a.url).localeCompare(text(b.url)))
  sorted.forEach((hook, i) => {
    fixture.webhooks![`webhook_${i + 1}`] = {url: hook.url, events: hook.events}
  })
  notRecreated.push('webhook signing secrets: each registration gets a new one')
}

/**
 * Open BNPL plans, made again with the same amount, currency, merchant and description. A new
 * plan collects its first instalment once the processor has taken it: a plan that had paid one
 * gives its wallet that much more to start with, so that the balance comes out as it is here. A
 * plan that had paid more starts again with only its first paid: named, since it will collect the
 * others again.
 */
async function exportBnpl(
  client: PayctlClient,
  ref: (id: unknown) => string,
  walletNames: Map<string, string>,
  fixture: Record<string, Record<string, Loose>>,
  notRecreated: string[],
): Promise<void> {
  const plans = await all(async (cursor) => {
    const r = (await client.call('listBnplPayments', {
      query: {limit: 100, ...(cursor ? {cursor} : {})},
    })) as Loose
    return {items: r.payments as Loose[], next: (r.nextCursor as string | null) ?? null}
  })
  const open = plans
    .filter((p) => p.status === 'pending' || p.status === 'active')
    .sort(
      (a, b) => text(a.createdAt).localeCompare(text(b.createdAt)) || text(a.id).localeCompare(text(b.id)),
    )
  for (const plan of open) {
    const wallet = walletNames.get(text(plan.walletId))
    const user = ref(plan.userId)
    const key = `${wallet ?? 'plan'}_bnpl_${Object.keys(fixture.bnpl_payments ?? {}).length + 1}`
    fixture.bnpl_payments ??= {}
    fixture.bnpl_payments[key] = {
      user,
      amount: text(plan.amount),
      currency: plan.currency,
      merchant_name: plan.merchantName,
      ...(plan.description ? {description: plan.description} : {}),
      ...(wallet === undefined ? {} : {after: [`wallets.${wallet}`]}),
    }
    const paid = Number(plan.paidInstallments)
    const first = (plan.schedule as Loose[] | undefined)?.[0]?.amount
    const opening = wallet === undefined ? undefined : fixture.wallets?.[wallet]
    if (paid >= 1 && opening !== undefined && first !== undefined)
      opening.initial_balance = String(BigInt(text(opening.initial_balance)) + BigInt(text(first)))
    if (paid >= 2) {
      notRecreated.push(
        `BNPL plan ${key}: ${paid} of ${text(plan.installments)} instalments were paid; made again, it has paid only its first, and collects the others again as they fall due`,
      )
    }
  }
}

/** Write a fixture to `path` whole or not at all: a temporary file beside it, renamed into place. */
export function writeFixtureFile(path: string, fixture: string): void {
  writeFileAtomically(path, fixture, 0o666, '--file')
}

/** A file written whole or not at all: a temporary file beside it, renamed into place. */
export function writeFileAtomically(path: string, text: string, mode: number, flag: string): void {
  const temp = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(temp, text, {mode})
    renameSync(temp, path)
  } catch (err) {
    rmSync(temp, {force: true})
    throw new PayctlError({
      kind: 'usage',
      code: 'INVALID_FILE',
      message: `${flag} ${path}: ${(err as Error).message}`,
      details: {flag, path},
      cause: err,
    })
  }
}
