import {expect} from 'vitest'
import {query, type Reply, type TestSandbox} from './helpers.js'

/** The resource of an enveloped success (or the error of an enveloped failure). */
// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by expect(), not by types
export const data = (res: Reply): any => res.body.data

/** Parse JSON keeping integers beyond 2^53 exact (as bigint), to check wei amounts. */
export function parseExact(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: {source?: string}) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source &&
    /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown)
}

/** A wallet for a new user (or `userId`), funded with `initialBalance`; returns its id. */
export async function wallet(
  t: TestSandbox,
  currency: string,
  initialBalance: number | bigint = 0,
  userId?: string,
): Promise<string> {
  const owner = userId ?? (await t.user())
  // Bigints go out as exact digits, as a client that keeps wei exact would send them.
  const raw = `{"userId":"${owner}","currency":"${currency}","initialBalance":${initialBalance.toString()}}`
  const res = await t.call('POST', '/v1/wallets', {raw})
  if (res.status !== 201) throw new Error(`wallet creation failed: ${res.text}`)
  return data(res).id as string
}

export function createTx(
  t: TestSandbox,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.post('/v1/transactions', body, {headers})
}

export async function balanceOf(t: TestSandbox, walletId: string) {
  return data(await t.get(`/v1/wallets/${walletId}/balance`))
}

/** Events of one type recorded for a transaction (or anything whose data mentions `id`). */
export function eventsFor(file: string, type: string, id: string): Record<string, unknown>[] {
  return query(
    file,
    'SELECT data FROM events WHERE type = ? AND data LIKE ? ORDER BY seq',
    type,
    `%${id}%`,
  ).map((row) => parseExact(String(row.data)) as Record<string, unknown>)
}

/**
 * Audit the ledger of a data file: every posting sums to zero, every wallet bucket equals the sum of
 * its entries and none is negative. Returns what is wrong (empty when all holds).
 */
export function ledgerProblems(file: string): string[] {
  const problems: string[] = []
  const byAccount = new Map<string, bigint>()
  const byTransaction = new Map<string, bigint>()
  for (const e of query(file, 'SELECT account, transaction_id, amount FROM ledger_entries')) {
    const amount = BigInt(String(e.amount))
    byAccount.set(String(e.account), (byAccount.get(String(e.account)) ?? 0n) + amount)
    byTransaction.set(String(e.transaction_id), (byTransaction.get(String(e.transaction_id)) ?? 0n) + amount)
  }
  for (const [id, sum] of byTransaction) if (sum !== 0n) problems.push(`${id} entries sum to ${sum}`)
  for (const w of query(file, 'SELECT id, available, pending, reserved FROM wallets')) {
    // A wallet's newest entry says the balance it left: the wallet's balance now.
    const [last] = query(
      file,
      'SELECT available_after, pending_after, reserved_after FROM ledger_entries WHERE wallet_id = ? ORDER BY seq DESC LIMIT 1',
      String(w.id),
    )
    for (const bucket of ['available', 'pending', 'reserved'] as const) {
      if (last !== undefined && String(last[`${bucket}_after`]) !== String(w[bucket]))
        problems.push(`${w.id} ${bucket} is ${w[bucket]}, its newest entry left ${last[`${bucket}_after`]}`)
      const cached = BigInt(String(w[bucket]))
      const ledger = byAccount.get(`${w.id}:${bucket}`) ?? 0n
      if (cached !== ledger) problems.push(`${w.id} ${bucket} is ${cached}, its ledger says ${ledger}`)
      if (cached < 0n) problems.push(`${w.id} ${bucket} is negative: ${cached}`)
    }
  }
  return problems
}

export function expectLedgerBalanced(file: string): void {
  expect(ledgerProblems(file)).toEqual([])
}
