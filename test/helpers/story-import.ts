import {expect} from 'vitest'
import type {Cli} from './cli.js'

/** What must not leave the source: the customer's email, name and a metadata value. */
export const SECRETS = ['ada@example.test', 'Ada', 'ORD-SECRET-7741'] as const

type Loose = Record<string, unknown>
export interface Inspected {
  user: Loose
  wallets: Loose[]
  bnplPayments: Loose[] | undefined
  missing: unknown[]
  timeline: Loose[]
}

export const importedStory = {
  /** A card top-up with a metadata value that only the source may hold, and a pending round-up. */
  async enrich(cli: Cli, wallet: string, user: string): Promise<void> {
    const r = await cli(
      'transactions',
      'create',
      '--profile',
      'local',
      '--method',
      'card',
      '--amount',
      '12.00USD',
      '--to',
      wallet,
      '--payment-method',
      'pm_card_visa',
      '--metadata',
      'order=ORD-SECRET-7741',
    )
    expect(r.exitCode, r.stderr).toBe(0)
    // A round-up after the transfer: pending, waiting for the next.
    const p = await cli(
      'roundups',
      'process',
      '--profile',
      'local',
      '--user',
      user,
      '--amount',
      '7.20',
      '--merchant',
      'Bakery',
      '--transaction-id',
      'p-2',
    )
    expect(p.exitCode, p.stderr).toBe(0)
  },
}

/** `users inspect --json` of a user over 90 days. */
export async function storyOf(cli: Cli, profile: string[], user: string): Promise<Inspected> {
  const r = await cli('users', 'inspect', user, '--json', '--since', '90d', ...profile)
  expect(r.exitCode, r.stderr).toBe(0)
  return r.json<Inspected>()
}

const pick = (o: Loose | undefined, keys: string[]) =>
  o === undefined ? undefined : Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]))

/** What two tellings of a story must share: lines, amounts, statuses, balances; not ids or redacted fields. */
export function comparable(inv: Inspected) {
  return {
    wallets: inv.wallets.map((w) => pick(w, ['currency', 'status', 'balance'])),
    bnpl: inv.bnplPayments?.map((p) => ({
      ...pick(p, ['amount', 'currency', 'status', 'installments', 'paidInstallments', 'merchantName']),
      schedule: (p.schedule as Loose[]).map((s) =>
        pick(s, ['number', 'amount', 'dueAt', 'status', 'paidAt']),
      ),
    })),
    missing: inv.missing,
    timeline: inv.timeline.map((l) => ({
      ...pick(l, ['at', 'kind', 'what', 'amount', 'currency', 'status', 'webhook', 'balanceAfter', 'source']),
      events: (l.events as Loose[] | undefined)?.map((e) => ({
        ...pick(e, ['event', 'status']),
        deliveries: (e.deliveries as Loose[] | undefined)?.map((d) =>
          pick(d, ['status', 'attempts', 'tries']),
        ),
      })),
    })),
  }
}
