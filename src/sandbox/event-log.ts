import {EVENT_NAMES, type EventName} from '../contract/events/envelope.js'
import {column} from './storage/column-rules.js'
import {addColumn, byPartner, type Database, type Schema, type Statement} from './storage/database.js'

/** The most events one row of event_subjects covers: a change records a few events one after another. */
const MAX_RUN = 64

import {newId} from './storage/ids.js'
import {RowsInsert} from './storage/rows.js'

/** The event log: what each partner's changes recorded, in order, for webhooks and GET /events. */
export const EVENTS: Schema = {
  name: 'events',
  sql: `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  partner_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_partner ON events (partner_id, seq);
-- What each event is about: the users, wallets and transactions it concerns (docs/webhooks.md).
-- A row covers the events event_seq to last_seq (NULL: event_seq alone), which one change recorded
-- one after another about the same subjects (a transfer's three events).
CREATE TABLE IF NOT EXISTS event_subjects (
  subject TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  last_seq INTEGER,
  PRIMARY KEY (subject, event_seq)
) WITHOUT ROWID;
`,
  tables: [
    byPartner('events', {
      seq: column.seq,
      id: column.id('evt'),
      type: column.oneOf(EVENT_NAMES),
      data: column.json('object', 64 * 1024),
      created_at: column.time,
    }),
    {
      name: 'event_subjects',
      tie: {parent: 'events', key: 'seq', column: 'event_seq'},
      columns: {subject: column.id('usr', 'wal', 'txn'), event_seq: column.seq, last_seq: column.seq},
      checks: [
        {
          // The recursive query of aboutCondition walks the run: a run is a change's few events, each there.
          what: `its last_seq does not end a run of at most ${MAX_RUN} of its partner's events from event_seq`,
          sql: `r.last_seq IS NULL OR (r.last_seq > r.event_seq AND r.last_seq - r.event_seq < ${MAX_RUN}
            AND (SELECT count(*) FROM events AS e WHERE e.seq BETWEEN r.event_seq AND r.last_seq
                 AND e.partner_id = (SELECT partner_id FROM events WHERE seq = r.event_seq)) = r.last_seq - r.event_seq + 1)`,
        },
      ],
    },
  ],
  migrations: [
    {version: 5, up: indexRecordedEvents},
    {version: 6, up: (database) => addColumn(database, 'event_subjects', 'last_seq', 'INTEGER')},
  ],
}

/**
 * The condition on `events` that selects the events whose subjects include what `subjects` (SQL
 * selecting `subject` values, with its parameters) names.
 */
export function aboutCondition(subjects: string): string {
  return `seq IN (WITH RECURSIVE covered (seq, last) AS (
      SELECT event_seq, COALESCE(last_seq, event_seq) FROM event_subjects WHERE subject IN (${subjects})
      UNION ALL SELECT seq + 1, last FROM covered WHERE seq < last)
    SELECT seq FROM covered)`
}

/** A user, wallet or transaction id: what an event can be about. */
const SUBJECT = /^(usr|wal|txn)_[0-9a-f]{24}$/

/**
 * The subjects of an event: every user, wallet and transaction id its data names, at any depth
 * (a BNPL payment names its instalments' transactions), and those the recorder adds (`about`: the
 * wallets of a transaction whose data names only the transaction).
 */
export function subjectsOf(data: unknown, about: readonly (string | null | undefined)[] = []): Set<string> {
  const found = new Set<string>()
  for (const id of about) if (id !== null && id !== undefined && SUBJECT.test(id)) found.add(id)
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') {
      if (SUBJECT.test(value)) found.add(value)
    } else if (depth < 4 && value !== null && typeof value === 'object') {
      for (const v of Array.isArray(value) ? value : Object.values(value)) visit(v, depth + 1)
    }
  }
  visit(data, 0)
  return found
}

/**
 * Schema 4 to 5: events gain their subjects. Each event of an older file is indexed under the ids its
 * data names and, for a transaction's event, that transaction's wallets and its other leg, as a new
 * event would be: one pass over the events, an indexed look-up for each transaction event.
 */
function indexRecordedEvents(database: Database): void {
  const events = database.prepare<{seq: number; data: string}>('SELECT seq, data FROM events ORDER BY seq')
  const transaction = database.prepare<{
    wallet_id: string
    source_wallet_id: string | null
    destination_wallet_id: string | null
    paired_id: string | null
    original_id: string | null
  }>(
    'SELECT wallet_id, source_wallet_id, destination_wallet_id, paired_id, original_id FROM transactions WHERE id = ?',
  )
  const insert = database.prepare('INSERT OR IGNORE INTO event_subjects (subject, event_seq) VALUES (?, ?)')
  for (const event of events.all()) {
    const subjects = subjectsOf(JSON.parse(event.data))
    for (const id of [...subjects]) {
      const t = id.startsWith('txn_') ? transaction.get(id) : undefined
      if (t === undefined) continue
      const about = [t.wallet_id, t.source_wallet_id, t.destination_wallet_id, t.paired_id, t.original_id]
      for (const related of subjectsOf(null, about)) subjects.add(related)
    }
    for (const subject of subjects) insert.run(subject, event.seq)
  }
}

export interface RecordedEvent {
  id: string
  type: EventName
  partnerId: string
  data: Record<string, unknown>
  createdAt: string
}

/** An event for EventLog.recordAll: what it is, whose, its data, when, and what it is about (see recordAll). */
export interface EventToRecord {
  type: EventName
  partnerId: string
  data: Record<string, unknown>
  now: Date
  subjects: Set<string>
}

type EventListener = (event: RecordedEvent) => void
const listeners = new WeakMap<Database, Set<EventListener>>()

/**
 * Be told of each event recorded in `database`, by any EventLog (webhook delivery starts here).
 * The listener runs inside the recording transaction, which may still roll back: it should only
 * schedule work that reads the events table later. Returns a function that stops the calls.
 */
export function onEventRecorded(database: Database, listener: EventListener): () => void {
  const set = listeners.get(database) ?? new Set<EventListener>()
  listeners.set(database, set)
  set.add(listener)
  return () => set.delete(listener)
}

/**
 * What the events being recorded are about, written as few rows as it can: consecutive events of
 * one partner about the same subjects share a row per subject (a transfer's three events, four
 * subjects: four rows instead of twelve). The rows of a run are inserted before its transaction
 * ends or another begins inside it (Database.holds): a run never outlives the savepoint it was
 * recorded in, and is dropped with it.
 */
class SubjectIndex {
  readonly #insert: RowsInsert
  #run: {partnerId: string; first: number; last: number; subjects: Set<string>} | undefined

  constructor(private readonly database: Database) {
    this.#insert = new RowsInsert(database, 'INSERT INTO event_subjects (subject, event_seq, last_seq)', 3)
    database.holds({flush: () => this.flush(), forget: () => (this.#run = undefined)})
  }

  /** Index event `seq` of `partnerId` under `subjects`. */
  add(partnerId: string, seq: number, subjects: Set<string>): void {
    const run = this.#run
    if (run?.partnerId === partnerId && run.last === seq - 1 && sameSet(run.subjects, subjects))
      run.last = seq
    else {
      this.flush()
      this.#run = {partnerId, first: seq, last: seq, subjects}
    }
    if (!this.database.inTransaction) this.flush()
  }

  flush(): void {
    const run = this.#run
    if (run === undefined) return
    this.#run = undefined
    const last = run.last === run.first ? null : run.last
    this.#insert.hold([...run.subjects].map((subject) => [subject, run.first, last]))
  }
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a === b) return true
  if (a.size !== b.size) return false
  for (const x of a) if (!b.has(x)) return false
  return true
}

/**
 * How a database's events are written, shared by its EventLogs: their rows, numbered by SQLite
 * as they are inserted, or by this while a group commit holds them back (the subject index names
 * an event by its number before the row exists).
 */
class EventRows {
  readonly subjects: SubjectIndex
  readonly #insert: RowsInsert
  readonly #insertNumbered: RowsInsert
  readonly #lastNumber: Statement<{seq: number}>
  /** The number of the next event held back; read again when none is held. */
  #next = 0

  constructor(private readonly database: Database) {
    this.subjects = new SubjectIndex(database)
    const columns = 'id, type, partner_id, data, created_at'
    this.#insert = new RowsInsert(database, `INSERT INTO events (${columns})`, 5)
    this.#insertNumbered = new RowsInsert(database, `INSERT INTO events (seq, ${columns})`, 6)
    // The number AUTOINCREMENT would give next, less one.
    this.#lastNumber = database.prepare<{seq: number}>(
      `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0),
         coalesce((SELECT max(seq) FROM events), 0)) AS seq`,
    )
  }

  /** Insert `rows` (RowsInsert's of `columns` above), or hold them back: the first one's number. */
  insert(rows: (string | null)[][]): number {
    const held = this.database.held
    if (held === undefined) return Number(this.#insert.run(rows).lastInsertRowid) - rows.length + 1
    if (held.count('events') === 0) this.#next = this.#lastNumber.get()!.seq + 1
    const first = this.#next
    this.#next += rows.length
    this.#insertNumbered.hold(rows.map((row, i) => [first + i, ...row]))
    return first
  }
}

const eventRows = new WeakMap<Database, EventRows>()

/**
 * The event log that webhook delivery reads. Call `record` inside the transaction that makes
 * the change, so an event exists exactly when its change does.
 */
export class EventLog {
  readonly #rows: EventRows

  constructor(private readonly database: Database) {
    let rows = eventRows.get(database)
    if (rows === undefined) {
      rows = new EventRows(database)
      eventRows.set(database, rows)
    }
    this.#rows = rows
  }

  /**
   * Record an event, indexed under what it is about: the user, wallet and transaction ids its data
   * names, and `about`, the ids it concerns that its data does not name (the wallets of a
   * transaction). Dated `now` by the partner's clock; the data is stored as given: deliveries carry
   * it unchanged.
   */
  record(
    type: EventName,
    partnerId: string,
    data: Record<string, unknown>,
    now: Date,
    about: readonly (string | null | undefined)[] = [],
  ): RecordedEvent {
    return this.recordAll([{type, partnerId, data, now, subjects: subjectsOf(data, about)}])[0]!
  }

  /**
   * Record events one after another, written in one statement, each with the subjects the caller
   * knows without reading its data: what subjectsOf would find, the ids its data names included.
   */
  recordAll(events: readonly EventToRecord[]): RecordedEvent[] {
    const recorded = events.map(
      ({type, partnerId, data, now}): RecordedEvent => ({
        id: newId.event(),
        type,
        partnerId,
        data,
        createdAt: now.toISOString(),
      }),
    )
    const first = this.#rows.insert(
      recorded.map((e) => [e.id, e.type, e.partnerId, JSON.stringify(e.data), e.createdAt]),
    )
    // Numbered one after another, as one statement numbers its rows.
    events.forEach((e, i) => {
      this.#rows.subjects.add(e.partnerId, first + i, e.subjects)
    })
    for (const listener of listeners.get(this.database) ?? []) for (const event of recorded) listener(event)
    return recorded
  }
}

/** Record one event in `database` (see EventLog.record); for code that has no EventLog at hand. */
export function recordEvent(
  database: Database,
  type: EventName,
  partnerId: string,
  data: Record<string, unknown>,
): RecordedEvent {
  return new EventLog(database).record(type, partnerId, data, new Date())
}
