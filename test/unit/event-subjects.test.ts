import {describe, expect, test} from 'vitest'
import {aboutCondition, EventLog} from '../../src/sandbox/event-log.js'
import {openDatabase} from '../../src/sandbox/features.js'

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
})
