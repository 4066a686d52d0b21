import {describe, expect, test} from 'vitest'
import {aboutCondition, EventLog, subjectsOf} from '../../src/sandbox/event-log.js'
import {openDatabase} from '../../src/sandbox/features.js'
import {MoneyEvents} from '../../src/sandbox/money/events.js'
import {newRecord} from '../../src/sandbox/money/records.js'

/** The events about `subject`, by type, as GET /v1/events?walletId=… selects them. */
function about(database: ReturnType<typeof openDatabase>, subject: string): string[] {
  const rows = database.db
    .prepare(`SELECT json_extract(data, '$.n') AS n FROM events WHERE ${aboutCondition('?')} ORDER BY seq`)
    .all(subject) as {n: string}[]
  return rows.map((r) => r.n)
}

describe('what events are about', () => {
  test('consecutive events of one change about the same subjects share one row a subject', () => {
    const database = openDatabase(':memory:')
    try {
      const log = new EventLog(database)
      const now = new Date()
      const both = ['wal_a00000000000000000000000', 'wal_b00000000000000000000000']
      const [a, b] = both as [string, string]
      database.transaction(() => {
        for (const n of ['1', '2', '3']) log.record('transfer.completed', 'p', {n}, now, both)
        log.record('wallet.created', 'p', {n: '4', id: a}, now)
        log.record('transfer.completed', 'other', {n: '5'}, now, both)
      })
      expect(about(database, a)).toEqual(['1', '2', '3', '4', '5'])
      expect(about(database, b)).toEqual(['1', '2', '3', '5'])
      const rows = database.db.prepare('SELECT subject, event_seq, last_seq FROM event_subjects').all()
      expect(rows).toHaveLength(5)
    } finally {
      database.close()
    }
  })

  test('events rolled back leave nothing behind, and a rollback inside a change keeps what came before', () => {
    const database = openDatabase(':memory:')
    try {
      const log = new EventLog(database)
      const now = new Date()
      const w = 'wal_c00000000000000000000000'
      log.record('wallet.created', 'p', {n: 'outside'}, now, [w])
      database.transaction(() => {
        log.record('wallet.created', 'p', {n: 'kept'}, now, [w])
        try {
          database.transaction(() => {
            log.record('wallet.created', 'p', {n: 'undone'}, now, [w])
            throw new Error('refused')
          })
        } catch {}
        log.record('wallet.created', 'p', {n: 'after'}, now, [w])
      })
      expect(() =>
        database.transaction(() => {
          log.record('wallet.created', 'p', {n: 'lost'}, now, [w])
          throw new Error('refused')
        }),
      ).toThrow('refused')
      expect(about(database, w)).toEqual(['outside', 'kept', 'after'])
      const covered = database.db
        .prepare(
          'SELECT count(*) AS n FROM event_subjects e WHERE NOT EXISTS (SELECT 1 FROM events WHERE seq = e.event_seq)',
        )
        .get() as {n: number}
      expect(covered.n).toBe(0)
    } finally {
      database.close()
    }
  })
  test('under group commit, events held back are numbered as SQLite numbers them, beside rows inserted otherwise', async () => {
    const database = openDatabase(':memory:')
    database.groupCommits()
    try {
      const log = new EventLog(database)
      const now = new Date()
      const w = 'wal_d00000000000000000000000'
      database.transaction(() => {
        for (const n of ['1', '2']) log.record('wallet.created', 'p', {n}, now, [w])
      })
      expect(() =>
        database.transaction(() => {
          log.record('wallet.created', 'p', {n: 'lost'}, now, [w])
          throw new Error('refused')
        }),
      ).toThrow('refused')
      database.transaction(() => log.record('wallet.created', 'p', {n: '3'}, now, [w]))
      // Another writer of the table, numbered by AUTOINCREMENT: what is held is written first.
      database.db
        .prepare(
          "INSERT INTO events (id, type, partner_id, data, created_at) VALUES ('evt_x', 'wallet.created', 'p', '{\"n\":\"4\"}', '')",
        )
        .run()
      database.transaction(() => log.record('wallet.created', 'p', {n: '5'}, now, [w]))
      await database.committed()
      expect(about(database, w)).toEqual(['1', '2', '3', '5'])
      const events = database.db
        .prepare("SELECT json_extract(data, '$.n') AS n FROM events ORDER BY seq")
        .all()
      expect(events.map((e) => e.n)).toEqual(['1', '2', '3', '4', '5'])
    } finally {
      database.close()
    }
  })
})

describe("a transaction's events", () => {
  test('are indexed under what their data names and the transaction touches, as subjectsOf finds it', () => {
    const recorded: {data: Record<string, unknown>; subjects: Set<string>}[] = []
    const log = {
      recordAll: (events: {data: Record<string, unknown>; subjects: Set<string>}[]) =>
        recorded.push(...events),
    } as unknown as EventLog
    const events = new MoneyEvents(log)
    const id = (p: string, n: number) => `${p}_${String(n).padStart(24, '0')}`
    const base = newRecord(
      {
        partnerId: 'p',
        walletId: id('wal', 1),
        type: 'transfer_out',
        amount: 100n,
        currency: 'USD',
        sourceWalletId: id('wal', 1),
        destinationWalletId: id('wal', 2),
        pairedId: id('txn', 3),
      },
      new Date(0).toISOString(),
    )
    const metadata = {order: 'o-1', customer: id('usr', 4), other: id('wal', 5), not: 'usr_short'}
    for (const r of [
      base,
      {...base, metadata},
      {...base, status: 'failed' as const, failureReason: 'Insufficient funds', metadata},
      {
        ...base,
        type: 'withdrawal' as const,
        destinationWalletId: null,
        pairedId: null,
        originalId: id('txn', 6),
      },
    ]) {
      recorded.length = 0
      const incoming = {...r, id: r.pairedId ?? id('txn', 7), walletId: id('wal', 2), pairedId: r.id}
      events.transaction(r, new Date(0))
      events.transfer(r, new Date(0))
      events.transferred(r, incoming, new Date(0))
      expect(recorded).toHaveLength(5)
      const records = new Map([r, incoming].map((record) => [record.id, record]))
      for (const {data, subjects} of recorded) {
        const of = records.get(String(data.id ?? data.transferId))!
        const about = [of.walletId, of.sourceWalletId, of.destinationWalletId, of.pairedId, of.originalId]
        expect(subjects).toEqual(subjectsOf(data, about))
      }
    }
  })
})
