import {createHash} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'
import {expect} from 'vitest'
import {EVENT_NAMES} from '../../src/contract/events/envelope.js'
import type {TestSandbox} from './helpers.js'

/** Snapshot files as a test takes them apart and puts them together again, as anyone can. */

/** Send `bytes` as the snapshot file `name`, in chunks of at most 512 KiB. */
export async function upload(p: TestSandbox, name: string, bytes: Buffer) {
  const size = 512 * 1024
  for (let offset = 0; ; offset += size) {
    const last = offset + size >= bytes.length
    const res = await p.call('PUT', `/_sandbox/snapshots/${name}/file`, {
      body: {offset, data: bytes.subarray(offset, offset + size).toString('base64'), last},
    })
    if (last || res.status !== 200) return res
  }
}

/** Read a stored snapshot file whole, chunk by chunk. */
export async function download(p: TestSandbox, name: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  let offset = 0
  for (;;) {
    const res = await p.get(`/_sandbox/snapshots/${name}/file?offset=${offset}`)
    expect(res.status, res.text).toBe(200)
    const chunk = Buffer.from(res.body.data, 'base64')
    chunks.push(chunk)
    offset += chunk.length
    if (chunk.length === 0 || offset >= res.body.bytes) return Buffer.concat(chunks)
  }
}

/** A snapshot file's rows (its SQLite part), its format line and its header. */
export function partsOf(file: Buffer): {rows: Buffer; format: string; header: Record<string, unknown>} {
  const at = file.lastIndexOf('PAYCTL-SNAPSHOT ')
  const line = file.indexOf(10, at)
  const json = file.subarray(line + 1, file.length - 1).toString()
  return {rows: file.subarray(0, at), format: file.subarray(at, line).toString(), header: JSON.parse(json)}
}

/**
 * The snapshot file with its rows changed by `change`, run on them as a SQLite file in `dir`, and its
 * header's length and checksum made to match them again, as anyone can compute them. Its seal is
 * kept as it was (`keepSeal`) or left out: either way no longer the rows'.
 */
export function tampered(
  file: Buffer,
  dir: string,
  change: (db: DatabaseSync) => void,
  keepSeal = false,
): Buffer {
  const {rows, format, header} = partsOf(file)
  const path = join(dir, `tampered-${Math.random().toString(16).slice(2)}.db`)
  writeFileSync(path, rows)
  const db = new DatabaseSync(path)
  try {
    change(db)
  } finally {
    db.close()
  }
  const changed = readFileSync(path)
  const next: Record<string, unknown> = {
    ...header,
    bodyBytes: changed.length,
    sha256: createHash('sha256').update(changed).digest('hex'),
  }
  if (!keepSeal) delete next.seal
  return Buffer.concat([changed, Buffer.from(`${format}\n${JSON.stringify(next)}\n`)])
}

/**
 * Give the partner a record in every table a partner's rows are kept in, through the API: every
 * event's trigger, a saved payment method, a linked bank account, a card, a payment and a P2P send,
 * round-ups, a BNPL payment, a registration that gets deliveries, a listen session, a moved clock
 * and keyed requests. Returns its first user and wallet.
 */
export async function seedEveryTable(
  p: TestSandbox,
  receiverUrl: string,
): Promise<{user: string; wallet: string}> {
  const ok = async (res: Promise<{status: number; text: string; body: unknown}>) => {
    const r = await res
    expect(r.status, r.text).toBeLessThan(300)
    // biome-ignore lint/suspicious/noExplicitAny: answers are checked by expect(), not by types
    return r.body as any
  }
  const hook = await ok(p.post('/v1/webhooks', {url: receiverUrl, events: ['*']}))
  expect(hook.data.id).toMatch(/^whk_/)
  await ok(p.post('/v1/webhooks/listen-sessions', {listenerKey: 'listener-snapshot'}))
  for (const event of EVENT_NAMES) await ok(p.post('/_sandbox/trigger', {event}))
  const user = (
    await ok(p.post('/v1/users', {email: 'everything@example.test', firstName: 'Ever', lastName: 'Y'}))
  ).data.id
  const other = (
    await ok(p.post('/v1/users', {email: 'friend@example.test', firstName: 'Fri', lastName: 'End'}))
  ).data.id
  const wallet = (await ok(p.post('/v1/wallets', {userId: user, currency: 'USD'}))).data.id
  await ok(p.post('/v1/wallets', {userId: other, currency: 'USD'}))
  await ok(
    p.post(
      '/v1/transactions',
      {
        amount: 50_000,
        currency: 'USD',
        destinationWalletId: wallet,
        paymentMethodId: 'pm_card_visa',
        method: 'card',
      },
      {headers: {'idempotency-key': 'seed-top-up'}},
    ),
  )
  await ok(p.post(`/v1/users/${user}/payment-methods`, {type: 'card', token: 'tok_visa'}))
  const {linkToken} = (await ok(p.post(`/v1/users/${user}/accounts/connect`))).data
  await ok(p.post(`/v1/users/${user}/accounts`, {link_token: linkToken}))
  await ok(p.post(`/v1/users/${user}/accounts/connect`))
  await ok(p.post(`/v1/walletsvc/users/${user}/cards`, {walletId: wallet}))
  await ok(
    p.post('/v1/walletsvc/payments', {userId: user, amount: 1_000, currency: 'USD', merchantName: 'Shop'}),
  )
  await ok(
    p.post('/v1/walletsvc/p2p/send', {fromUserId: user, toUserId: other, amount: 500, currency: 'USD'}),
  )
  await ok(p.post(`/v1/roundupsvc/users/${user}/roundups/enable`, {multiplier: 2}))
  await ok(
    p.post('/v1/transactions/process', {
      user_id: user,
      transaction_id: 'purchase-1',
      amount: 4.35,
      merchant_name: 'Cafe',
    }),
  )
  await ok(p.post('/_sandbox/clock/advance', {seconds: 3600}))
  return {user, wallet}
}

/** The tables of a SQLite file with no row in them. */
export function emptyTables(path: string): string[] {
  const db = new DatabaseSync(path, {readOnly: true})
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as {name: string}[]
    return names
      .map((n) => n.name)
      .filter((name) => db.prepare(`SELECT 1 FROM ${name} LIMIT 1`).get() === undefined)
  } finally {
    db.close()
  }
}
