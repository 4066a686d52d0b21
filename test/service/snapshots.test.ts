import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, test} from 'vitest'
import type {SandboxOptions} from '../../src/sandbox/index.js'
import {codeOf, createPartner, start as startTest, type TestSandbox, tempDir} from './helpers.js'
import {download, upload} from './snapshot-files.js'

const DAY = 86_400

/** A card top-up of `amount` to `wallet`, under the Idempotency-Key `key` if one is given. */
const topUp = (p: TestSandbox, wallet: string, amount: number, key?: string) =>
  p.post(
    '/v1/transactions',
    {amount, currency: 'USD', destinationWalletId: wallet, paymentMethodId: 'pm_card_visa', method: 'card'},
    key === undefined ? {} : {headers: {'idempotency-key': key}},
  )

/** A user with a funded wallet; returns the wallet id. */
async function funded(p: TestSandbox, amount: number): Promise<string> {
  const res = await p.post('/_sandbox/trigger', {event: 'transaction.completed'})
  expect(res.status, res.text).toBe(201)
  const wallet = res.body.objects.wallet as string
  const txn = await topUp(p, wallet, amount)
  expect(txn.status, txn.text).toBe(201)
  return wallet
}

const balanceOf = async (p: TestSandbox, wallet: string): Promise<number> =>
  Number((await p.get(`/v1/wallets/${wallet}`)).body.data.balance.available)

// Every case twice: in memory (rows copied one by one) and on a data file (SQLite's pages copied
// whole, the file renamed into place by a restore: src/sandbox/snapshots/swap.ts).
describe.each([{where: 'in memory'}, {where: 'on a data file'}])('a sandbox $where', ({where}) => {
  const dirs: (() => void)[] = []
  afterAll(() => {
    for (const cleanup of dirs) cleanup()
  })
  const start = (options: SandboxOptions = {}): Promise<TestSandbox> => {
    if (where === 'in memory') return startTest(options)
    const files = tempDir()
    dirs.push(files.cleanup)
    return startTest({data: files.file, ...options})
  }

  describe('snapshots of a partner', () => {
    test('restore puts back its records, balances and clock, ids unchanged, and no other partner is touched', async () => {
      const t = await start({settleAfterSeconds: DAY})
      try {
        const a = await createPartner(t, 'alpha')
        const b = await createPartner(t, 'beta')
        const walletA = await funded(a, 10_000)
        const walletB = await funded(b, 7_000)
        await a.post('/_sandbox/clock/advance', {seconds: 3600})
        const [savedA, savedB] = [await balanceOf(a, walletA), await balanceOf(b, walletB)]
        const saved = await a.post('/_sandbox/snapshots', {name: 'funded'})
        expect(saved.status, saved.text).toBe(201)
        expect(saved.body).toMatchObject({name: 'funded', scope: 'partner', partnerId: a.creds.partnerId})
        expect(saved.body.records).toBeGreaterThan(5)
        const clockAtSave = (await a.get('/_sandbox/clock')).body.offsetSeconds

        // After the save: more money, a new wallet, a later clock; beta moves on too.
        await topUp(a, walletA, 2_500)
        const later = await funded(a, 1_000)
        await a.post('/_sandbox/clock/advance', {seconds: 5 * DAY})
        await topUp(b, walletB, 500)
        const laterB = await balanceOf(b, walletB)
        expect(laterB).toBeGreaterThan(savedB)

        const restored = await a.post('/_sandbox/snapshots/funded/restore')
        expect(restored.status, restored.text).toBe(200)
        expect(restored.body).toMatchObject({name: 'funded', scope: 'partner', restored: true})
        expect(await balanceOf(a, walletA)).toBe(savedA)
        expect((await a.get(`/v1/wallets/${later}`)).status).toBe(404)
        const clock = (await a.get('/_sandbox/clock')).body.offsetSeconds
        expect(Math.abs(clock - clockAtSave)).toBeLessThanOrEqual(5)
        // Beta is as it was: its later payment stays, its clock on real time.
        expect(await balanceOf(b, walletB)).toBe(laterB)
        expect(Math.abs((await b.get('/_sandbox/clock')).body.offsetSeconds)).toBeLessThanOrEqual(5)
        // Alpha's credentials and tokens still work.
        expect((await a.exchange()).status).toBe(200)
      } finally {
        await t.sb.close()
      }
    })

    test('idempotency keys are the snapshot’s: its keys replay their answers, a key used since acts anew', async () => {
      const t = await start()
      try {
        const a = await createPartner(t, 'keys')
        const wallet = await funded(a, 10_000)
        const keyed = (key: string, amount: number) => topUp(a, wallet, amount, key)
        const before = await keyed('before-save', 300)
        expect((await a.post('/_sandbox/snapshots', {name: 'keys'})).status).toBe(201)
        const atSave = await balanceOf(a, wallet)
        const since = await keyed('after-save', 400)
        const credited = (await balanceOf(a, wallet)) - atSave
        expect((await a.post('/_sandbox/snapshots/keys/restore')).status).toBe(200)

        const replay = await keyed('before-save', 300)
        expect(await balanceOf(a, wallet)).toBe(atSave)
        expect(replay.headers.get('idempotent-replayed')).toBe('true')
        expect(replay.text).toBe(before.text)
        const anew = await keyed('after-save', 400)
        expect(anew.status, anew.text).toBe(201)
        expect(anew.headers.get('idempotent-replayed')).toBeNull()
        expect(anew.body.data.id).not.toBe(since.body.data.id)
        expect(await balanceOf(a, wallet)).toBe(atSave + credited)
      } finally {
        await t.sb.close()
      }
    })

    test('list, delete, and each partner sees only its own snapshots', async () => {
      const t = await start()
      try {
        const a = await createPartner(t, 'alpha')
        await funded(a, 100)
        expect((await a.post('/_sandbox/snapshots', {name: 'one'})).status).toBe(201)
        expect((await a.post('/_sandbox/snapshots', {name: 'two'})).status).toBe(201)
        expect(
          (await a.get('/_sandbox/snapshots')).body.data.map((s: {name: string}) => s.name).sort(),
        ).toEqual(['one', 'two'])
        expect((await t.get('/_sandbox/snapshots')).body.data).toEqual([])
        expect((await t.post('/_sandbox/snapshots/one/restore')).status).toBe(404)
        const deleted = await a.call('DELETE', '/_sandbox/snapshots/one')
        expect(deleted.body).toEqual({name: 'one', deleted: true})
        expect((await a.call('DELETE', '/_sandbox/snapshots/one')).status).toBe(404)
        expect((await a.get('/_sandbox/snapshots')).body.data.map((s: {name: string}) => s.name)).toEqual([
          'two',
        ])
      } finally {
        await t.sb.close()
      }
    })

    test('names with a slash, dots, control characters or 300 characters are refused, and nothing is written', async () => {
      const files = tempDir()
      const t = await start({snapshotDir: files.dir})
      try {
        for (const name of ['a/b', '..', '.hidden', 'a\u0001b', 'x'.repeat(300)]) {
          const res = await t.post('/_sandbox/snapshots', {name})
          expect(res.status, name).toBe(400)
          expect(codeOf(res)).toBe('VALIDATION_ERROR')
        }
        for (const path of ['a%2Fb', '..%2F..%2Fetc', '.hidden', 'a%01b', 'x'.repeat(300)]) {
          const res = await t.post(`/_sandbox/snapshots/${path}/restore`)
          expect(res.status, path).toBe(400)
          expect(codeOf(res)).toBe('VALIDATION_ERROR')
        }
        // A path of dot segments never reaches a snapshot route.
        expect((await t.post('/_sandbox/snapshots/%2e%2e/restore')).status).toBeGreaterThanOrEqual(400)
        expect((await t.get('/_sandbox/snapshots')).body.data).toEqual([])
      } finally {
        await t.sb.close()
        files.cleanup()
      }
    })

    test('a chunk sent past what the upload holds is refused, naming the offset to send, even before any', async () => {
      const t = await start()
      try {
        const chunk = (offset: number, data: Buffer) =>
          t.call('PUT', '/_sandbox/snapshots/partial/file', {body: {offset, data: data.toString('base64')}})
        const early = await chunk(987_652_627, Buffer.from('x'))
        expect(early.status, early.text).toBe(400)
        expect(codeOf(early)).toBe('VALIDATION_ERROR')
        expect(early.text).toContain('send the chunk at offset 0')
        expect((await chunk(0, Buffer.from('abc'))).body).toMatchObject({received: 3})
        const gap = await chunk(10, Buffer.from('x'))
        expect(codeOf(gap)).toBe('VALIDATION_ERROR')
        expect(gap.text).toContain('send the chunk at offset 3')
        expect((await t.get('/_sandbox/snapshots')).body.data).toEqual([])
      } finally {
        await t.sb.close()
      }
    })

    test('a snapshot file travels: downloaded from one sandbox, sent to another, restored there', async () => {
      const one = await start()
      const two = await start()
      try {
        const wallet = await funded(one, 4_200)
        const keyed = (p: TestSandbox) => topUp(p, wallet, 300, 'travels-with-it')
        const first = await keyed(one)
        const before = await balanceOf(one, wallet)
        expect((await one.post('/_sandbox/snapshots', {name: 'ci'})).status).toBe(201)
        const file = await download(one, 'ci')
        const sent = await upload(two, 'from-one', file)
        expect(sent.status, sent.text).toBe(200)
        expect(sent.body.snapshot).toMatchObject({name: 'from-one', scope: 'partner'})
        const restored = await two.post('/_sandbox/snapshots/from-one/restore')
        expect(restored.status, restored.text).toBe(200)
        expect(await balanceOf(two, wallet)).toBe(before)
        // Its stored answers came with it: a retry there replays and moves nothing.
        const retry = await keyed(two)
        expect(retry.headers.get('idempotent-replayed')).toBe('true')
        expect(retry.text).toBe(first.text)
        expect(await balanceOf(two, wallet)).toBe(before)
      } finally {
        await one.sb.close()
        await two.sb.close()
      }
    })

    test('a file in format 1 (its header first), as an older payctl wrote it, is restored', async () => {
      const t = await start()
      try {
        const wallet = await funded(t, 3_100)
        const before = await balanceOf(t, wallet)
        expect((await t.post('/_sandbox/snapshots', {name: 'now'})).status).toBe(201)
        const file = await download(t, 'now')
        const trailer = file.lastIndexOf('PAYCTL-SNAPSHOT 3\n')
        const json = file.subarray(trailer + 'PAYCTL-SNAPSHOT 3\n'.length, file.length - 1).toString()
        const old = Buffer.concat([Buffer.from(`PAYCTL-SNAPSHOT 1\n${json}\n`), file.subarray(0, trailer)])
        expect((await upload(t, 'old', old)).body.snapshot).toMatchObject({name: 'old', format: 1})
        await topUp(t, wallet, 700)
        expect(await balanceOf(t, wallet)).not.toBe(before)
        const restored = await t.post('/_sandbox/snapshots/old/restore')
        expect(restored.status, restored.text).toBe(200)
        expect(await balanceOf(t, wallet)).toBe(before)
      } finally {
        await t.sb.close()
      }
    })

    test('a truncated, corrupt, newer or foreign file is refused as SNAPSHOT_INVALID, naming what is wrong', async () => {
      const t = await start()
      try {
        const wallet = await funded(t, 900)
        const before = await balanceOf(t, wallet)
        expect((await t.post('/_sandbox/snapshots', {name: 'good'})).status).toBe(201)
        const file = await download(t, 'good')
        // The rows, then the header: its last two lines.
        const trailer = file.lastIndexOf('PAYCTL-SNAPSHOT 3\n')
        expect(file.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0')
        const corrupt = Buffer.from(file)
        corrupt[trailer - 100] = (corrupt[trailer - 100] ?? 0) ^ 0xff
        const newer = Buffer.from(file)
        newer.write('9', trailer + 'PAYCTL-SNAPSHOT '.length, 'latin1')
        const cases: [string, Buffer, RegExp][] = [
          ['truncated', file.subarray(0, file.length - 1000), /truncated/],
          ['cut-header', file.subarray(0, file.length - 10), /cut off|truncated|damaged/],
          ['corrupt', corrupt, /checksum/],
          ['newer', newer, /format 9.*newer payctl/],
          ['longer', Buffer.concat([file, Buffer.from('more')]), /past its header|damaged/],
          ['foreign', Buffer.from('SQLite format 3\0 and then some'), /not a payctl snapshot/],
          ['empty', Buffer.alloc(0), /not a payctl snapshot/],
        ]
        await funded(t, 50)
        for (const [name, bytes, reason] of cases) {
          const res = await upload(t, name, bytes)
          expect(res.status, name).toBe(400)
          expect(codeOf(res), name).toBe('SNAPSHOT_INVALID')
          expect(res.body.message, name).toMatch(reason)
        }
        // Nothing of them is stored, and the sandbox is as it was.
        expect((await t.get('/_sandbox/snapshots')).body.data.map((s: {name: string}) => s.name)).toEqual([
          'good',
        ])
        expect(await balanceOf(t, wallet)).toBe(before)
      } finally {
        await t.sb.close()
      }
    })
  })

  describe('a deleted partner’s snapshot', () => {
    test('its file restores into another partner, records under their ids; its own folder stays on disk', async () => {
      const files = tempDir()
      const t = await start({snapshotDir: files.dir})
      try {
        const gone = await createPartner(t, 'gone')
        const wallet = await funded(gone, 1_500)
        const before = await balanceOf(gone, wallet)
        expect((await gone.post('/_sandbox/snapshots', {name: 'last'})).status).toBe(201)
        const file = await download(gone, 'last')
        expect((await t.call('DELETE', '/_sandbox/partners/gone', {auth: t.creds.secretKey})).status).toBe(
          200,
        )
        expect(existsSync(join(files.dir, gone.creds.partnerId, 'last.snapshot'))).toBe(true)

        const heir = await createPartner(t, 'heir')
        expect((await upload(heir, 'inherited', file)).status).toBe(200)
        const restored = await heir.post('/_sandbox/snapshots/inherited/restore')
        expect(restored.status, restored.text).toBe(200)
        expect(await balanceOf(heir, wallet)).toBe(before)
        // Restored again while the heir holds those records: the same partner, so no conflict.
        expect((await heir.post('/_sandbox/snapshots/inherited/restore')).status).toBe(200)
        // Another partner cannot take records the heir now holds.
        const third = await createPartner(t, 'third')
        expect((await upload(third, 'copy', file)).status).toBe(200)
        const conflict = await third.post('/_sandbox/snapshots/copy/restore')
        expect(conflict.status).toBe(409)
        expect(codeOf(conflict)).toBe('SNAPSHOT_CONFLICT')
        expect((await third.get('/v1/wallets')).body.data.wallets).toEqual([])
      } finally {
        await t.sb.close()
        files.cleanup()
      }
    })
  })

  describe('snapshots of the whole sandbox', () => {
    test('only the operator saves one; restoring it brings back every partner, removing those made since', async () => {
      const t = await start()
      try {
        const a = await createPartner(t, 'alpha')
        const walletA = await funded(a, 3_000)
        const walletOp = await funded(t, 1_000)
        const [beforeA, beforeOp] = [await balanceOf(a, walletA), await balanceOf(t, walletOp)]
        const refused = await a.post('/_sandbox/snapshots', {name: 'all', all: true})
        expect(refused.status).toBe(403)
        expect(codeOf(refused)).toBe('INSUFFICIENT_PERMISSIONS')
        const saved = await t.post('/_sandbox/snapshots', {name: 'everything', all: true})
        expect(saved.status, saved.text).toBe(201)
        expect(saved.body.scope).toBe('all')

        await createPartner(t, 'gamma')
        await topUp(a, walletA, 100)
        const restored = await t.post('/_sandbox/snapshots/everything/restore')
        expect(restored.status, restored.text).toBe(200)
        const names = (await t.get('/_sandbox/partners')).body.data.map((p: {name: string}) => p.name)
        expect(names).toEqual([t.creds.partnerId, 'alpha'])
        expect(await balanceOf(a, walletA)).toBe(beforeA)
        expect(await balanceOf(t, walletOp)).toBe(beforeOp)
      } finally {
        await t.sb.close()
      }
    })
  })

  describe('consistency while serving', () => {
    test('saves taken among transfers never hold half of one: every snapshot balances', async () => {
      const t = await start()
      try {
        const from = await funded(t, 100_000)
        const to = await funded(t, 100)
        const total = (await balanceOf(t, from)) + (await balanceOf(t, to))
        const transfers = Array.from({length: 40}, () =>
          t.post('/v1/transactions', {
            amount: 70,
            currency: 'USD',
            sourceWalletId: from,
            destinationWalletId: to,
            method: 'wallet',
          }),
        )
        const saves = Array.from({length: 5}, (_, i) => t.post('/_sandbox/snapshots', {name: `mid-${i}`}))
        const results = await Promise.all([...transfers, ...saves])
        for (const r of results) expect(r.status, r.text).toBeLessThan(300)
        for (let i = 0; i < 5; i++) {
          expect((await t.post(`/_sandbox/snapshots/mid-${i}/restore`)).status).toBe(200)
          const sum = (await balanceOf(t, from)) + (await balanceOf(t, to))
          expect(sum, `snapshot mid-${i}`).toBe(total)
        }
      } finally {
        await t.sb.close()
      }
    })

    test('restores among transfers: each request wholly before or after one, and a listener gets what comes after', async () => {
      const t = await start()
      try {
        const from = await funded(t, 100_000)
        const to = await funded(t, 100)
        const total = (await balanceOf(t, from)) + (await balanceOf(t, to))
        const session = await t.post('/v1/webhooks/listen-sessions', {listenerKey: 'across-restores'})
        expect(session.status, session.text).toBe(200)
        expect((await t.post('/_sandbox/snapshots', {name: 'base'})).status).toBe(201)
        const move = () =>
          t.post('/v1/transactions', {
            amount: 70,
            currency: 'USD',
            sourceWalletId: from,
            destinationWalletId: to,
            method: 'wallet',
          })
        const results = await Promise.all([
          ...Array.from({length: 30}, move),
          ...Array.from({length: 3}, () => t.post('/_sandbox/snapshots/base/restore')),
          ...Array.from({length: 30}, move),
        ])
        for (const r of results) expect(r.status, r.text).toBeLessThan(300)
        expect((await balanceOf(t, from)) + (await balanceOf(t, to))).toBe(total)
        // Every wallet's balance is what its newest ledger entry left it with.
        for (const wallet of [from, to]) {
          const [newest] = (await t.get(`/v1/wallets/${wallet}/ledger-entries?limit=1`)).body.data.entries
          expect(Number(newest.balanceAfter.available)).toBe(await balanceOf(t, wallet))
        }
        // The listener, connected before the restores, is still open and gets an event made after them.
        const pending = async () =>
          (await t.post('/v1/webhooks/listen-sessions', {listenerKey: 'across-restores'})).body.data
            .pending as number
        const before = await pending()
        expect((await move()).status).toBe(201)
        expect(await pending()).toBeGreaterThan(before)
      } finally {
        await t.sb.close()
      }
    })

    test.runIf(where === 'on a data file')(
      'a restored state and what follows it survive a restart',
      async () => {
        const files = tempDir()
        try {
          let t = await startTest({data: files.file})
          const wallet = await funded(t, 5_000)
          const saved = await balanceOf(t, wallet)
          expect((await t.post('/_sandbox/snapshots', {name: 'kept'})).status).toBe(201)
          const extra = await funded(t, 100)
          expect((await t.post('/_sandbox/snapshots/kept/restore')).status).toBe(200)
          expect((await t.get(`/v1/wallets/${extra}`)).status).toBe(404)
          await topUp(t, wallet, 250)
          const after = await balanceOf(t, wallet)
          expect(after).toBeGreaterThan(saved)
          await t.sb.close()
          t = await startTest({data: files.file})
          try {
            expect(await balanceOf(t, wallet)).toBe(after)
            expect((await t.get(`/v1/wallets/${extra}`)).status).toBe(404)
            expect((await t.get('/_sandbox/snapshots')).body.data.map((s: {name: string}) => s.name)).toEqual(
              ['kept'],
            )
          } finally {
            await t.sb.close()
          }
        } finally {
          files.cleanup()
        }
      },
    )
  })
})
